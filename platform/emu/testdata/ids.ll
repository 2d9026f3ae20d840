; What the hardware and the runtime hand a kernel: each lane stores its
; workitem ids, its workgroup ids, fields of the dispatch packet and of the
; implicit (hidden) arguments, ten words at out[10 * (global linear lane)].
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

define amdgpu_kernel void @ids(ptr addrspace(1) %out, i32 %scale) #0 {
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %tz = call i32 @llvm.amdgcn.workitem.id.z()
  %gx = call i32 @llvm.amdgcn.workgroup.id.x()
  %gy = call i32 @llvm.amdgcn.workgroup.id.y()
  %gz = call i32 @llvm.amdgcn.workgroup.id.z()
  %dp = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %ip = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  ; dispatch packet: workgroup_size_x (u16 at 4), grid_size_x (u32 at 12)
  %dp4 = getelementptr i8, ptr addrspace(4) %dp, i64 4
  %wsx16 = load i16, ptr addrspace(4) %dp4
  %wsx = zext i16 %wsx16 to i32
  %dp12 = getelementptr i8, ptr addrspace(4) %dp, i64 12
  %gsx = load i32, ptr addrspace(4) %dp12
  ; implicit arguments (code object v5): block_count_y (u32 at 4), group_size_z (u16 at 16)
  %ip4 = getelementptr i8, ptr addrspace(4) %ip, i64 4
  %bcy = load i32, ptr addrspace(4) %ip4
  %ip16 = getelementptr i8, ptr addrspace(4) %ip, i64 16
  %gsz16 = load i16, ptr addrspace(4) %ip16
  %gsz = zext i16 %gsz16 to i32
  ; linear lane = ((gz * 3 + gy) * 2 + gx) * 64 + (tz * 4 + ty) * 8 + tx, for grid (2, 3, 2) and block (8, 4, 2)
  %g1 = mul i32 %gz, 3
  %g2 = add i32 %g1, %gy
  %g3 = mul i32 %g2, 2
  %g4 = add i32 %g3, %gx
  %g5 = mul i32 %g4, 64
  %t1 = mul i32 %tz, 4
  %t2 = add i32 %t1, %ty
  %t3 = mul i32 %t2, 8
  %t4 = add i32 %t3, %tx
  %lane = add i32 %g5, %t4
  %base = mul i32 %lane, 10
  %sx = mul i32 %tx, %scale
  %v = insertelement <10 x i32> poison, i32 %sx, i32 0
  %v1 = insertelement <10 x i32> %v, i32 %ty, i32 1
  %v2 = insertelement <10 x i32> %v1, i32 %tz, i32 2
  %v3 = insertelement <10 x i32> %v2, i32 %gx, i32 3
  %v4 = insertelement <10 x i32> %v3, i32 %gy, i32 4
  %v5 = insertelement <10 x i32> %v4, i32 %gz, i32 5
  %v6 = insertelement <10 x i32> %v5, i32 %wsx, i32 6
  %v7 = insertelement <10 x i32> %v6, i32 %gsx, i32 7
  %v8 = insertelement <10 x i32> %v7, i32 %bcy, i32 8
  %v9 = insertelement <10 x i32> %v8, i32 %gsz, i32 9
  %idx = sext i32 %base to i64
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  store <10 x i32> %v9, ptr addrspace(1) %p, align 4
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
