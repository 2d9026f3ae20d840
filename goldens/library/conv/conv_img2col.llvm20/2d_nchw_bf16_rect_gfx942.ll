; rocke kernel conv_img2col_2d_nchw_bf16_rect_gfx942 for gfx942, lowered for llvm20
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @conv_img2col_2d_nchw_bf16_rect_gfx942(ptr addrspace(1) noundef %arg.x, ptr addrspace(1) noundef %arg.w, ptr addrspace(1) noundef %arg.y) #0 {
entry:
  %v0 = call i32 @llvm.amdgcn.workgroup.id.x()
  %v1 = mul i32 %v0, 256
  %v2 = call i32 @llvm.amdgcn.workitem.id.x()
  %v3 = add i32 %v1, %v2
  %v4 = srem i32 %v3, 3
  %v5 = sdiv i32 %v3, 3
  %v6 = srem i32 %v5, 6
  %v7 = sdiv i32 %v5, 6
  %v8 = srem i32 %v7, 3
  %v9 = sdiv i32 %v7, 3
  %v10 = icmp slt i32 %v3, 108
  br i1 %v10, label %if.then0, label %if.else1
if.then0:
  %v11 = mul i32 %v8, 15
  br label %for.head3
for.head3:
  %v12 = phi i32 [ 0, %if.then0 ], [ %v53, %for.body4 ]
  %v13 = phi float [ 0x0000000000000000, %if.then0 ], [ %v52, %for.body4 ]
  %v14 = icmp slt i32 %v12, 15
  br i1 %v14, label %for.body4, label %for.exit5
for.body4:
  %v15 = srem i32 %v12, 3
  %v16 = sdiv i32 %v12, 3
  %v17 = srem i32 %v16, 1
  %v18 = sdiv i32 %v16, 1
  %v19 = mul i32 %v6, 1
  %v20 = mul i32 %v17, 1
  %v21 = sub i32 %v20, 0
  %v22 = add i32 %v19, %v21
  %v23 = icmp sge i32 %v22, 0
  %v24 = icmp slt i32 %v22, 6
  %v25 = and i1 %v23, %v24
  %v26 = select i1 %v25, i32 %v22, i32 0
  %v27 = mul i32 %v4, 3
  %v28 = mul i32 %v15, 1
  %v29 = sub i32 %v28, 0
  %v30 = add i32 %v27, %v29
  %v31 = icmp sge i32 %v30, 0
  %v32 = icmp slt i32 %v30, 10
  %v33 = and i1 %v31, %v32
  %v34 = and i1 %v25, %v33
  %v35 = select i1 %v33, i32 %v30, i32 0
  %v36 = mul i32 %v9, 5
  %v37 = add i32 %v36, %v18
  %v38 = mul i32 %v37, 6
  %v39 = add i32 %v38, %v26
  %v40 = mul i32 %v39, 10
  %v41 = add i32 %v40, %v35
  %v42 = mul i32 %v41, 2
  %v43 = getelementptr inbounds i8, ptr addrspace(1) %arg.x, i32 %v42
  %v44 = load bfloat, ptr addrspace(1) %v43, align 2
  %v45 = fpext bfloat %v44 to float
  %v46 = select i1 %v34, float %v45, float 0x0000000000000000
  %v47 = add i32 %v11, %v12
  %v48 = mul i32 %v47, 2
  %v49 = getelementptr inbounds i8, ptr addrspace(1) %arg.w, i32 %v48
  %v50 = load bfloat, ptr addrspace(1) %v49, align 2
  %v51 = fpext bfloat %v50 to float
  %v52 = call float @llvm.fma.f32(float %v46, float %v51, float %v13)
  %v53 = add i32 %v12, 1
  br label %for.head3
for.exit5:
  %v54 = mul i32 %v3, 2
  %v55 = getelementptr inbounds i8, ptr addrspace(1) %arg.y, i32 %v54
  %v56 = fptrunc float %v13 to bfloat
  store bfloat %v56, ptr addrspace(1) %v55, align 2
  br label %if.end2
if.else1:
  br label %if.end2
if.end2:
  ret void
}

declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.fma.f32(float, float, float)

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" "target-cpu"="gfx942" "uniform-work-group-size"="true" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
