#!/bin/sh
# librocke_core.a defines the entry points of every core component, so an
# application links the core from this one archive.
archive=$1
case $archive in */librocke_core.a) ;; *) echo "rocke_core_test: expected librocke_core.a, got $archive"; exit 1 ;; esac
# Functions returning std::string demangle with an [abi:cxx11] tag before "(".
raw=$(nm -C --defined-only "$archive") || { echo "rocke_core_test: nm failed on $archive"; exit 1; }
symbols=$(echo "$raw" | sed 's/\[abi:cxx11\]//g')
status=0
for entry in 'rocke::arch::get(' 'rocke::arch::all()' 'rocke::ops::schema(' 'rocke::ops::all()' \
  'rocke::ir::vector(' 'rocke::ir::ptr(' 'rocke::ir::scalar(' 'rocke::errors::closest(' \
  'rocke::ir::verify(' 'rocke::ir::check_op(' 'rocke::ir::KernelBuilder::finish(' 'rocke::ir::mma::fragment_types(' \
  'rocke::ir::print_kernel(' 'rocke::ir::parse(' 'rocke::lower::lower(' \
  'rocke::json::parse(' 'rocke::json::canonical(' \
  'rocke::family::get(' 'rocke::family::read_cases(' 'rocke::family::read_case(' 'rocke::family::representatives(' \
  'rocke::files::write_atomic(' 'rocke::llvm::compile_and_link(' \
  'rocke::engine::emit_case(' 'rocke_emit' 'rocke_compile' 'rocke_families' \
  'rocke::tile::fragment(' 'rocke::tile::KMajor::offset(' 'rocke::tile::TileCopy::load(' \
  'rocke::tile::mainloop(' 'rocke::tile::fma_mainloop(' 'rocke::tile::epilogue(' 'rocke::tile::GemmConfig::check('; do
  if ! echo "$symbols" | grep -q " T $entry"; then
    echo "rocke_core_test: $archive does not define $entry"
    status=1
  fi
done
[ $status = 0 ] && echo "rocke_core_test: ok"
exit $status
