"""ISA metrics: llvm-objdump text to main-loop counts, and the kernel IR's LDS bank-conflict model."""
