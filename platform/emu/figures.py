"""Dynamic figures of a launch, from the real addresses its waves used:
per LDS instruction, bank cycles against the ideal under the bank rules
platform/isa/banks.py models statically (the same function, wave_cost, on
the arch's banks from archs.json); per global memory instruction, the
64- and 128-byte segments each execution touches (its transactions).

Counting costs time, so a launch counts only when asked (launch(...,
figures=True)); rocke run asks.
"""

import numpy as np

from arch import arch as archs
from isa.banks import wave_cost


class Figures:
    def __init__(self, arch):
        lds = archs.lds_banks(arch)
        self.banks, self.bank_bytes = lds.count, lds.bytes
        self.lds = {}  # instruction address -> [executions, cycles, ideal, worst ways]
        self.memory = {}  # instruction address -> [executions, bytes, 64-byte segments, 128-byte segments]
        self._costs = {}  # (bytes, addresses less a whole number of bank rows, lanes) -> wave_cost
        self._segment_counts = {}  # (bytes, active addresses less whole 128-byte segments) -> segments

    def lds_access(self, at, addrs, mask, size):
        cycles, ideal, ways = self._cost(np.asarray(addrs, np.int64), mask, size)
        row = self.lds.setdefault(at, [0, 0, 0, 0])
        row[0] += 1
        row[1] += cycles
        row[2] += ideal
        row[3] = max(row[3], ways)

    def _cost(self, addrs, mask, size):
        """wave_cost of an access (which walks each lane's dwords in Python), remembered by its pattern: a
        loop issues the same pattern on every pass, shifted by whole rows of banks (a row: the next buffer
        of a double buffer), which changes no cost."""
        live = addrs[mask]
        row = self.banks * self.bank_bytes
        shift = int(live.min()) // row * row if live.size else 0
        key = (size, (addrs - shift).tobytes(), mask.tobytes())
        return _remember(self._costs, key, lambda: wave_cost(addrs - shift, mask, size, self.banks, self.bank_bytes))

    def memory_access(self, at, addrs, mask, size):
        addrs = np.asarray(addrs, np.uint64)[mask]
        row = self.memory.setdefault(at, [0, 0, 0, 0])
        row[0] += 1
        row[1] += int(addrs.size) * size
        segments = self._segments(addrs, size)
        row[2] += segments[0]
        row[3] += segments[1]

    def _segments(self, addrs, size):
        """(64-byte, 128-byte) segments the active lanes' `addrs` touch, remembered by their pattern: shifted
        by whole 128-byte segments (a loop's next pass), the counts are the same."""
        shift = np.uint64(int(addrs.min()) // 128 * 128 if addrs.size else 0)
        rel = addrs - shift

        def count():
            return tuple(
                int(np.unique(np.concatenate([rel // np.uint64(n), (rel + np.uint64(size - 1)) // np.uint64(n)])).size)
                for n in (64, 128)
            )

        return _remember(self._segment_counts, (size, rel.tobytes()), count)

    def summary(self):
        """Totals, JSON-ready: LDS cycles, ideal and worst ways; memory bytes and segments."""
        lds = np.array(list(self.lds.values()) or [[0, 0, 0, 0]])
        mem = np.array(list(self.memory.values()) or [[0, 0, 0, 0]])
        worst = max(self.lds.items(), key=lambda kv: (kv[1][3], kv[1][1] - kv[1][2]), default=(None, None))[0]
        return {
            "lds_executions": int(lds[:, 0].sum()),
            "lds_cycles": int(lds[:, 1].sum()),
            "lds_ideal": int(lds[:, 2].sum()),
            "lds_worst_ways": int(lds[:, 3].max()),
            "lds_worst_at": worst,
            "memory_executions": int(mem[:, 0].sum()),
            "memory_bytes": int(mem[:, 1].sum()),
            "segments_64": int(mem[:, 2].sum()),
            "segments_128": int(mem[:, 3].sum()),
        }


def _remember(table, key, compute):
    """table[key], computed the first time; a bound keeps the memory small where patterns do not repeat."""
    value = table.get(key)
    if value is None:
        if len(table) > 4096:
            table.clear()
        value = table[key] = compute()
    return value


def compare_banks(static, dynamic):
    """The static bank model of a kernel's IR (isa.banks.model) against the
    figures of its real accesses (Figures.summary()): whether they agree on
    the worst conflict (the most ways of one pass), and when they do not,
    the reason the static model states for it (None when it states none:
    a difference nothing explains)."""
    static_ways = static["worst_ways"] or 0
    dynamic_ways = dynamic["lds_worst_ways"] if dynamic["lds_executions"] else 0
    why = None
    if static_ways != dynamic_ways:
        unknown = [a for a in static["accesses"] if not a["modelled"]]
        if unknown:
            why = (
                f"the conflicts may lie in the {len(unknown)} of {len(static['accesses'])} accesses the static "
                f"model could not evaluate (op {unknown[0]['op']}: {unknown[0]['reason']}); the emulator's figures "
                "are per machine instruction, not yet per IR access"
            )
        elif static["accesses"] and not dynamic["lds_executions"]:
            why = "the launched workgroups made no LDS access"
    return {
        "static_worst_ways": static_ways,
        "dynamic_worst_ways": dynamic_ways,
        "agree": static_ways == dynamic_ways,
        "why": why,
    }
