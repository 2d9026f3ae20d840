#!/bin/sh
# librocke_library.a holds every C++ family's registration (one object per
# family, linked whole so the registration runs) and what the families need
# to build a case by name: ConvSpec, GemmSpec, the registry and the builder.
archive=$1
shift
case $archive in */librocke_library.a) ;; *) echo "rocke_library_test: expected librocke_library.a, got $archive"; exit 1 ;; esac
symbols=$(nm -C "$archive") || { echo "rocke_library_test: nm failed on $archive"; exit 1; }
status=0
# Each family object (the arguments: direct_fwd, img2col, ...) is a member and registers itself.
for family in "$@"; do
  registration=$(echo "$symbols" | sed -n "/^$family\.pic\.o:\$/,/^\$/p" | grep -c '::kRegistration$')
  if [ "$registration" -eq 0 ]; then
    echo "rocke_library_test: $archive has no member $family.pic.o defining its registration"
    status=1
  fi
done
for entry in 'rocke::conv::ConvSpec::from_json(' 'rocke::gemm::GemmSpec::from_json(' 'rocke::family::get(' 'rocke::ir::KernelBuilder::finish('; do
  if ! echo "$symbols" | grep -q " T $entry"; then
    echo "rocke_library_test: $archive does not define $entry"
    status=1
  fi
done
[ $# -gt 0 ] || { echo "rocke_library_test: expected the family objects to look for as arguments, got none"; status=1; }
[ $status = 0 ] && echo "rocke_library_test: ok ($# families)"
exit $status
