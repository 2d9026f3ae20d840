target triple = "amdgcn-amd-amdhsa"

declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(<16 x half>, <16 x half>, i16, <8 x float>, i1, i1)

define amdgpu_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %out) #0 {
  %g1 = getelementptr inbounds i8, ptr addrspace(1) %p, i64 0
  %a1 = load <16 x half>, ptr addrspace(1) %g1
  %g3 = getelementptr inbounds i8, ptr addrspace(1) %p, i64 128
  %a3 = load <16 x half>, ptr addrspace(1) %g3
  %g5 = getelementptr inbounds i8, ptr addrspace(1) %p, i64 256
  %a5 = load <8 x float>, ptr addrspace(1) %g5
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(<16 x half> %a1, <16 x half> %a3, i16 0, <8 x float> %a5, i1 false, i1 false)
  store <8 x float> %r, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
