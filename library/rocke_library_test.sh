#!/bin/sh
# librocke_library.a holds every C++ family's registration (one object per
# family, linked whole so the registration runs) and what the families need
# to build a case by name: ConvSpec, GemmSpec, the registry and the builder.
#
#   rocke_library_test.sh librocke_library.a cpp_families.txt
#
# cpp_families.txt (//library:families_files) names each family's library,
# one a line, as the rocke_family targets give them.
archive=$1
list=$2
case $archive in */librocke_library.a) ;; *) echo "rocke_library_test: expected librocke_library.a, got $archive"; exit 1 ;; esac
symbols=$(nm -C "$archive") || { echo "rocke_library_test: nm failed on $archive"; exit 1; }
status=0
[ -r "$list" ] || { echo "rocke_library_test: expected the list of family libraries, got '$list'"; exit 1; }
families=$(cat "$list")
# Each family object (direct_fwd, img2col, ...) is a member and registers itself.
for family in $families; do
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
count=$(echo "$families" | grep -c .)
[ "$count" -gt 0 ] || { echo "rocke_library_test: expected family libraries in $list, got none"; status=1; }
[ $status = 0 ] && echo "rocke_library_test: ok ($count families)"
exit $status
