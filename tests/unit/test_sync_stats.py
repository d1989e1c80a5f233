"""tools/lib/sync_stats.py against values computed by hand (closed forms written next to each
assertion) and published ones. Run by ctest (unit.test_sync_stats): python3 THIS_FILE SRC_DIR."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(sys.argv[1] if len(sys.argv) > 1 else
                                os.path.join(os.path.dirname(__file__), "..", ".."), "tools", "lib"))
import sync_stats as st  # noqa: E402


class ClopperPearson(unittest.TestCase):
    def test_ends_in_closed_form(self):
        # k = 0: the upper end solves (1 - p)^n = alpha / 2; k = n: the lower end p^n = alpha / 2
        self.assertEqual(st.clopper_pearson(0, 10)[0], 0.0)
        self.assertAlmostEqual(st.clopper_pearson(0, 10)[1], 1 - 0.025 ** 0.1, places=12)
        self.assertAlmostEqual(st.clopper_pearson(10, 10)[0], 0.025 ** 0.1, places=12)
        self.assertEqual(st.clopper_pearson(10, 10)[1], 1.0)
        # k = 1: the lower end solves 1 - (1 - p)^n = alpha / 2; k = n - 1 the upper, p^n = 1 - alpha/2
        self.assertAlmostEqual(st.clopper_pearson(1, 10)[0], 1 - 0.975 ** 0.1, places=12)
        self.assertAlmostEqual(st.clopper_pearson(9, 10)[1], 0.975 ** 0.1, places=12)
        self.assertAlmostEqual(st.clopper_pearson(0, 30)[1], 1 - 0.025 ** (1 / 30), places=12)

    def test_published(self):
        # R: binom.test(3, 10)$conf.int = 0.06673951 0.65245285
        lo, hi = st.clopper_pearson(3, 10)
        self.assertAlmostEqual(lo, 0.06673951, places=7)
        self.assertAlmostEqual(hi, 0.65245285, places=7)
        # R: binom.test(5, 10)$conf.int = 0.1870860 0.8129140 (symmetric)
        lo, hi = st.clopper_pearson(5, 10)
        self.assertAlmostEqual(lo, 0.1870860, places=6)
        self.assertAlmostEqual(lo + hi, 1.0, places=12)

    def test_bad(self):
        self.assertRaises(ValueError, st.clopper_pearson, 11, 10)


class StudentT(unittest.TestCase):
    def test_cdf_closed_forms(self):
        for t in (-3.0, -1.0, 0.0, 0.5, 1.0, 2.5, 10.0):
            # df = 1 (Cauchy): 1/2 + atan(t) / pi; df = 2: 1/2 + t / (2 sqrt(2 + t^2))
            self.assertAlmostEqual(st.t_cdf(t, 1), 0.5 + math.atan(t) / math.pi, places=12)
            self.assertAlmostEqual(st.t_cdf(t, 2), 0.5 + t / (2 * math.sqrt(2 + t * t)), places=12)

    def test_paired_t(self):
        # d = (0, 2): mean 1, se 1, t = 1 on 1 df: p = 2 (1/2 - atan(1) / pi) = 1/2
        self.assertAlmostEqual(st.t_p([0.0, 2.0]), 0.5, places=12)


class Tost(unittest.TestCase):
    def test_two_pairs(self):
        # d = (0, 2), margin 2: t = 3 against -2 (p = 1/2 - atan(3)/pi), t = -1 against +2
        # (p = 1/2 + atan(-1)/pi = 1/4): TOST p = the larger
        self.assertAlmostEqual(st.tost_p([0.0, 2.0], 2.0), 0.25, places=12)
        self.assertAlmostEqual(st.tost_p([0.0, 2.0], 20.0),
                               max(0.5 - math.atan(21) / math.pi, 0.5 + math.atan(-19) / math.pi),
                               places=12)

    def test_three_pairs(self):
        # d = (0, 1, 2): mean 1, sd 1, se 1/sqrt(3), 2 df; margin 0.5: t = 1.5 sqrt(3) and
        # 0.5 sqrt(3); F(t) = 1/2 + t / (2 sqrt(2 + t^2))
        F = lambda t: 0.5 + t / (2 * math.sqrt(2 + t * t))
        want = max(1 - F(1.5 * math.sqrt(3)), F(0.5 * math.sqrt(3)))
        self.assertAlmostEqual(st.tost_p([0.0, 1.0, 2.0], 0.5), want, places=12)
        self.assertGreater(st.tost_p([0.0, 1.0, 2.0], 0.5), 0.05)  # not equivalent

    def test_equivalent(self):
        # ten differences close to 0, margin far wider than their interval: equivalent
        d = [0.001 * (i - 4.5) for i in range(10)]
        self.assertLess(st.tost_p(d, 0.05), 0.001)
        self.assertEqual(st.tost_p([0.01] * 5, 0.02), 0.0)  # no spread, inside the margin
        self.assertEqual(st.tost_p([0.03] * 5, 0.02), 1.0)


class Holm(unittest.TestCase):
    def test_step_down(self):
        # sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> monotone 0.03, 0.06, 0.06
        adj = st.holm([0.01, 0.04, 0.03])
        for a, b in zip(adj, [0.03, 0.06, 0.06]):
            self.assertAlmostEqual(a, b, places=15)
        self.assertEqual(st.holm([0.5, 0.9]), [1.0, 1.0])

    def test_families(self):
        # two families adjusted apart: (0.01, 0.04) -> (0.02, 0.04); (0.03) alone -> 0.03
        adj = st.holm_families([0.01, 0.03, 0.04], ["K", "E", "K"])
        for a, b in zip(adj, [0.02, 0.03, 0.04]):
            self.assertAlmostEqual(a, b, places=15)


class Collapse(unittest.TestCase):
    def test_criteria(self):
        self.assertTrue(st.collapsed(0.3, 0.7, True, 0.5))
        self.assertFalse(st.collapsed(0.4, 0.7, True, 0.5))
        self.assertTrue(st.collapsed(2100.0, 1000.0, False, 0.5))  # J_h above twice
        # harvest healthy but the weights diverged (norm 10^9 against 8.5), or are not finite
        self.assertTrue(st.collapsed(0.55, 0.75, True, 0.5, 1e9, 8.5, 10.0))
        self.assertTrue(st.collapsed(0.55, 0.75, True, 0.5, float("inf"), 8.5, 10.0))
        self.assertFalse(st.collapsed(0.55, 0.75, True, 0.5, 26.8, 8.5, 10.0))
        # NaN: no weights or not known (the first edition's table): the quality alone decides
        self.assertFalse(st.collapsed(0.55, 0.75, True, 0.5, float("nan"), 8.5, 10.0))
        self.assertTrue(st.collapsed(0.3, 0.75, True, 0.5, float("nan"), 8.5, 10.0))
        self.assertTrue(st.diverged(85.1, 8.5, 10.0))
        self.assertFalse(st.diverged(85.0, 8.5, 10.0))


class Verdict(unittest.TestCase):
    def test_rules(self):
        # one collapsed seed: never "no effect", even when every test would say so
        self.assertEqual(st.verdict(1, 0.9, 0.001, 0.0), "collapses")
        self.assertEqual(st.verdict(0, 0.9, 0.001, 0.0), "no effect (equivalent)")
        self.assertEqual(st.verdict(0, 0.01, 0.001, 0.01), "worse within the margin")
        self.assertEqual(st.verdict(0, 0.01, 0.3, -0.2), "better")
        # an interval that holds 0 is not equivalence: inconclusive
        self.assertEqual(st.verdict(0, 0.4, 0.3, 0.01), "inconclusive")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
