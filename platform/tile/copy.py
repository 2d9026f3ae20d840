"""Cooperative, vectorised, bounds-checked copy of a tile from global memory to LDS."""

from ir import types as T

# fp8 is storage-only (no scf.yield of it): the copy moves its bytes as i8.
_BITS = {T.F8E4M3: T.I8, T.F8E5M2: T.I8}


def _load_guarded(b, ptr, ok, elem):
    """A scalar load where `ok`, else 0."""
    br = b.if_(ok, [elem])
    with br.then_():
        b.yield_(b.load(ptr, elem))
    with br.else_():
        b.yield_(b.const(0.0 if elem.is_float else 0, elem))
    return br.results[0]


def copy_to_lds(b, src, ld, rows, cols, row0, col0, lds, tile_rows, tile_cols, elem, vec, tid, threads):
    """All `threads` lanes copy src[row0 : row0+tile_rows, col0 : col0+tile_cols]
    (row-major, `ld` elements per row, `rows` x `cols` valid) into `lds`
    (row-major, tile_cols per row). Elements outside the source are zero.

    Each lane moves `vec` consecutive elements at a time: with one vector load
    when the whole vector lies inside the source, element by element otherwise.
    """
    if tile_cols % vec:
        raise ValueError(f"copy_to_lds: expected tile_cols ({tile_cols}) to be a multiple of vec ({vec})")
    elem = _BITS.get(elem, elem)
    per_row = tile_cols // vec
    total = tile_rows * per_row
    vtype = T.vector(elem, vec) if vec > 1 else elem
    for it in b.unroll(-(-total // threads)):
        idx = b.add(tid, it * threads)
        r, c = b.div(idx, per_row), b.mul(b.rem(idx, per_row), vec)
        gr, gc = b.add(row0, r), b.add(col0, c)
        in_row = b.cmp("lt", gr, rows)
        full = b.and_(in_row, b.cmp("le", b.add(gc, vec), cols))
        base = b.offset(src, b.mul(b.add(b.mul(gr, ld), gc), elem.nbytes))
        br = b.if_(full, [vtype])
        with br.then_():
            b.yield_(b.load(base, vtype))
        with br.else_():
            parts = [_load_guarded(b, b.offset(base, j * elem.nbytes), b.and_(in_row, b.cmp("lt", b.add(gc, j), cols)), elem) for j in range(vec)]
            b.yield_(b.build(parts) if vec > 1 else parts[0])
        dst = b.offset(lds, b.mul(b.add(b.mul(r, tile_cols), c), elem.nbytes))
        if total % threads and it == total // threads:
            with b.if_(b.cmp("lt", idx, total)):
                b.store(dst, br.results[0])
        else:
            b.store(dst, br.results[0])


def copy_to_lds_transposed(b, src, ld, rows, cols, row0, col0, lds, tile_rows, tile_cols, elem, vec, tid, threads):
    """copy_to_lds from a column-major source: element (r, c) of the
    rows x cols matrix is src[c * ld + r]. The LDS tile is row-major as
    copy_to_lds leaves it, so each lane reads `vec` consecutive rows of one
    column (one vector load when all lie inside the source) and writes them
    to LDS one element at a time.
    """
    if tile_rows % vec:
        raise ValueError(f"copy_to_lds_transposed: expected tile_rows ({tile_rows}) to be a multiple of vec ({vec})")
    elem = _BITS.get(elem, elem)
    per_col = tile_rows // vec
    total = tile_cols * per_col
    vtype = T.vector(elem, vec) if vec > 1 else elem
    for it in b.unroll(-(-total // threads)):
        idx = b.add(tid, it * threads)
        c, r = b.div(idx, per_col), b.mul(b.rem(idx, per_col), vec)
        gr, gc = b.add(row0, r), b.add(col0, c)
        in_col = b.cmp("lt", gc, cols)
        full = b.and_(in_col, b.cmp("le", b.add(gr, vec), rows))
        base = b.offset(src, b.mul(b.add(b.mul(gc, ld), gr), elem.nbytes))
        br = b.if_(full, [vtype])
        with br.then_():
            b.yield_(b.load(base, vtype))
        with br.else_():
            parts = [_load_guarded(b, b.offset(base, j * elem.nbytes), b.and_(in_col, b.cmp("lt", b.add(gr, j), rows)), elem) for j in range(vec)]
            b.yield_(b.build(parts) if vec > 1 else parts[0])
        values = [b.extract(br.results[0], j) for j in range(vec)] if vec > 1 else [br.results[0]]

        def store():
            for j, value in enumerate(values):
                b.store(b.offset(lds, b.mul(b.add(b.mul(b.add(r, j), tile_cols), c), elem.nbytes)), value)

        if total % threads and it == total // threads:
            with b.if_(b.cmp("lt", idx, total)):
                store()
        else:
            store()
