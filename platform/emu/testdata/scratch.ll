; A private array indexed by a lane-dependent value: scratch stores and loads.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @scratch(ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %arr = alloca [16 x i32], align 4, addrspace(5)
  br label %fill

fill:
  %i = phi i32 [ 0, %0 ], [ %next, %fill ]
  %v = mul i32 %i, %t
  %slot = getelementptr [16 x i32], ptr addrspace(5) %arr, i32 0, i32 %i
  store volatile i32 %v, ptr addrspace(5) %slot
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 16
  br i1 %done, label %read, label %fill

read:
  %j = and i32 %t, 15
  %at = getelementptr [16 x i32], ptr addrspace(5) %arr, i32 0, i32 %j
  %x = load volatile i32, ptr addrspace(5) %at
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %x, ptr addrspace(1) %o
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
