#!/usr/bin/env python3
"""tools/fidelity/rank_agreement.py against hand-computed values (ctest
fidelity.rank_agreement). Standard library only."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rank_agreement import resolved, resolved_rho, spearman, swapped_pairs  # noqa: E402

PUBLISHED = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
APART = [(v - 0.1, v + 0.1) for v in PUBLISHED]  # no two ranges overlap


class RankAgreementTest(unittest.TestCase):
    def test_spearman(self):
        self.assertAlmostEqual(spearman([3, 1, 2], [30, 10, 20]), 1.0)
        self.assertAlmostEqual(spearman([3, 2, 1], [1, 2, 3]), -1.0)
        # One adjacent pair swapped among 7: 1 - 6 * 2 / (7 * 48).
        self.assertAlmostEqual(spearman([2, 1, 3, 4, 5, 6, 7], PUBLISHED), 1 - 12 / 336)
        # Ties share their mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3).
        self.assertAlmostEqual(spearman([1, 1, 2], [1, 2, 3]), 0.8660254037844387)

    def test_resolved(self):
        self.assertTrue(resolved((1.0, 1.9), (2.0, 3.0)))
        self.assertTrue(resolved((2.0, 3.0), (1.0, 1.9)))
        self.assertFalse(resolved((1.0, 2.0), (2.0, 3.0)))  # touching ranges overlap
        self.assertFalse(resolved((1.0, 5.0), (2.0, 3.0)))

    def test_resolved_rho_equals_spearman_when_every_pair_is_resolved(self):
        predicted = [2, 1, 3, 4, 7, 6, 5]
        self.assertAlmostEqual(resolved_rho(predicted, PUBLISHED, APART),
                               spearman(predicted, PUBLISHED))

    def test_an_unresolved_pair_may_go_either_way(self):
        ranges = list(APART)
        ranges[0], ranges[1] = (0.5, 2.5), (1.5, 2.5)  # models 0 and 1 overlap
        self.assertAlmostEqual(resolved_rho([2, 1, 3, 4, 5, 6, 7], PUBLISHED, ranges), 1.0)
        # A resolved pair still counts: models 2 and 3 swapped as well.
        self.assertAlmostEqual(resolved_rho([2, 1, 4, 3, 5, 6, 7], PUBLISHED, ranges),
                               1 - 12 / 336)

    def test_overlap_is_not_transitive(self):
        # a ~ b and b ~ c overlap, a < c is resolved: the allowed orders are
        # (a, b, c), (a, c, b) and (b, a, c); against the predicted (c, b, a)
        # they give rho = 1 - sum d^2 / 4 = -1, -0.5, -0.5.
        ranges = [(1.0, 2.5), (2.0, 3.5), (3.0, 4.0)]
        self.assertAlmostEqual(resolved_rho([3.0, 2.0, 1.0], [1.8, 2.8, 3.5], ranges), -0.5)

    def test_swapped_pairs(self):
        rows = [("a", 1.0, 1.5), ("b", 1.2, 1.1), ("c", 5.0, 1.0)]
        ranges = {"a": (0.9, 1.25), "b": (1.1, 1.3), "c": (4.9, 5.1)}
        got = [(a[0], b[0], res) for a, b, res in swapped_pairs(rows, ranges)]
        # Closest published pair first: b/a 1.2, c/b 4.2, c/a 5.
        self.assertEqual(got, [("a", "b", False), ("b", "c", True), ("a", "c", True)])


if __name__ == "__main__":
    unittest.main()
