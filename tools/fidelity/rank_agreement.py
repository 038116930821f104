"""Rank agreement between predicted and published latencies of one device.

`spearman` is the plain Spearman ρ (ties share their mean rank), the issue's
target. `resolved_rho` is an extra, weaker figure: ncnn's `benchncnn` prints
each model's min, max and average over its timed loop, and two models whose
[min, max] ranges overlap are not ordered by the run itself (one loop's
spread, a lower bound on the benchmark's noise: another run of the same
device moves more). It is the highest ρ over the orders of the published
figures that keep every pair the ranges do order; with no overlapping pair it
equals `spearman`. `swapped_pairs` lists the pairs predicted in the other
order than published, each marked resolved or not. Only the standard library
is used.
"""

import itertools
import math
import statistics


def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den if den else float("nan")


def resolved(range_a, range_b):
    """True when two published (min, max) loop ranges do not overlap: the run
    itself orders the two models."""
    return range_a[1] < range_b[0] or range_b[1] < range_a[0]


def resolved_rho(predicted, published, ranges):
    """The highest Spearman ρ between `predicted` and an order of the published
    figures that keeps every pair whose loop `ranges` do not overlap (all three
    are lists over the same models). Exhaustive over the orders: for the seven
    held-out models of a device, 5040."""
    n = len(published)
    if n < 3:
        return float("nan")
    fixed = [(i, j) for i in range(n) for j in range(n)
             if published[i] < published[j] and resolved(ranges[i], ranges[j])]
    best = float("-inf")
    for order in itertools.permutations(range(n)):
        rank = [0] * n
        for position, i in enumerate(order):
            rank[i] = position
        if all(rank[i] < rank[j] for i, j in fixed):
            best = max(best, spearman(predicted, rank))
    return best


def swapped_pairs(rows, ranges):
    """[(a, b, resolved)] for every pair of `rows` ((model, published ms,
    predicted ms, ...) tuples of one device) predicted in the other order
    than published, `a` the one published faster, pairs published closest
    together first; `ranges` maps a model to its published (min, max)."""
    pairs = [(a, b, resolved(ranges[a[0]], ranges[b[0]]))
             for a in rows for b in rows if a[1] < b[1] and a[2] > b[2]]
    return sorted(pairs, key=lambda p: p[1][1] / p[0][1])
