/*
 * MPI integration tests of comm: the exact distributed top-k against a reference computed from
 * all keys (random unique keys, ranks without keys, k = 0, k = total, k > total, ties in value
 * broken by id as cs_frontier_key makes them), weight averaging that is bit-identical on every
 * rank and equal to the rank-order mean, budget splits that sum to B exactly and follow the
 * largest-remainder rule (and the fixed split when no rank has demand), and the outbox exchange
 * (every box to its rank, in rank order, empty boxes, cleared outboxes, statistics), exact
 * fixed-point sums that do not depend on how the terms are dealt to ranks, the global k-th
 * largest of unsorted keys (a cut that keeps exactly the top k), the fused top-k's "some asking
 * rank's keys all taken" answer and cut, and the fused allreduce (sums, maxima, ors, an error of
 * one rank agreed by all). Run at 1, 2 and 4 ranks.
 */
#include "crawlsim/comm.h"
#include "crawlsim/core.h"
#include "crawlsim/frontier.h"
#include "crawlsim/rng.h"
#include "mpitest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cs_ctx ctx;

static int cmp_u64_desc(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a > b ? -1 : a < b;
}

/* ---- top-k --------------------------------------------------------------------------------- */

/* Collective. This rank's n keys (decreasing) are checked against the global top-k for each k of
 * ks[]: *take must be the number of this rank's keys among the k largest of all keys. */
static int topk_case(const uint64_t *keys, int64_t n, const int64_t *ks, int nk)
{
    const int P = ctx.size;
    int ok = 1;
    for (int64_t i = 1; i < n; i++)
        ok &= keys[i - 1] > keys[i];
    /* every key on every rank */
    int cnt = (int)n, *counts = malloc((size_t)P * sizeof *counts),
        *displs = malloc((size_t)P * sizeof *displs);
    ck_assert(counts != NULL && displs != NULL);
    MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < P; r++) {
        displs[r] = total;
        total += counts[r];
    }
    uint64_t *all = malloc(((size_t)total + 1) * sizeof *all);
    ck_assert(all != NULL);
    MPI_Allgatherv(keys, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, MPI_COMM_WORLD);
    qsort(all, (size_t)total, sizeof *all, cmp_u64_desc);
    for (int i = 1; i < total; i++)
        ok &= all[i - 1] != all[i]; /* the test's keys are unique */
    for (int c = 0; c < nk; c++) {
        const int64_t k = ks[c];
        int64_t want = 0;
        if (k >= total)
            want = n;
        else if (k > 0)
            for (int64_t i = 0; i < n; i++) /* keys >= the k-th largest */
                want += keys[i] >= all[k - 1];
        int64_t take = -1;
        cs_comm_topk(&ctx, keys, n, k, &take);
        if (take != want) {
            fprintf(stderr, "rank %d: topk k = %lld of %d: take %lld, want %lld\n", ctx.rank,
                    (long long)k, total, (long long)take, (long long)want);
            ok = 0;
        }
        /* and the takes add up to min(k, total) */
        int64_t sum = 0;
        MPI_Allreduce(&take, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        ok &= sum == (k < total ? (k < 0 ? 0 : k) : total);
        /* the fused form: the same take, whether an asking rank (every other one) had all its
         * keys taken, and a cut below which nothing was taken */
        const int ask = (ctx.rank + c) % 2 == 0;
        int full = -1, mine_full = ask && want == n, any_full = 0;
        uint64_t cut = 1;
        MPI_Allreduce(&mine_full, &any_full, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        int64_t take2 = -1;
        ok &= cs_comm_topk_ex(&ctx, CS_OK, keys, n, k, ask, &take2, &full, &cut) == CS_OK;
        ok &= take2 == want && full == any_full;
        if (k > 0) {
            int64_t above = 0; /* keys >= cut over all ranks: exactly the taken ones */
            for (int i = 0; i < total; i++)
                above += all[i] >= cut;
            ok &= above == (k < total ? k : total);
        }
        if (!ok)
            fprintf(stderr, "rank %d: topk_ex k = %lld: take %lld, full %d (want %d), cut %llx\n",
                    ctx.rank, (long long)k, (long long)take2, full, any_full,
                    (unsigned long long)cut);
    }
    free(all);
    free(counts);
    free(displs);
    return ok;
}

/* Ks for a total of `total` keys: 0, 1, 2, a few in between, total - 1, total, total + 1, more. */
static int make_ks(int64_t total, int64_t *ks)
{
    int m = 0;
    ks[m++] = 0;
    ks[m++] = 1;
    ks[m++] = 2;
    ks[m++] = total / 3;
    ks[m++] = total / 2 + 1;
    ks[m++] = total > 0 ? total - 1 : 0;
    ks[m++] = total;
    ks[m++] = total + 1;
    ks[m++] = total * 2 + 17;
    return m;
}

START_TEST(topk_random_unique_keys)
{
    cs_rng r;
    for (int trial = 0; trial < 12; trial++) {
        cs_rng_init(&r, 77, CS_RNG_TEST, (uint64_t)trial, (uint64_t)ctx.rank);
        /* sizes: some ranks without keys (rank 1 in every other trial, all ranks in trial 0) */
        int64_t n = trial == 0 ? 0 : (int64_t)cs_rng_below(&r, trial < 6 ? 8 : 3000);
        if ((trial % 2 == 1 && ctx.rank == 1) || (trial == 3 && ctx.rank == 0))
            n = 0;
        if (trial == 4 && n < 2)
            n = 2;
        uint64_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
        ck_assert(keys != NULL);
        for (int64_t i = 0; i < n; i++) {
            uint64_t u = cs_rng_u64(&r);
            if (trial % 3 == 2) /* narrow range: keys share their high bits */
                u = 0x8000000000000000ULL | (u & 0xffffffULL);
            /* unique across ranks: the low bits are (rank, i) */
            keys[i] = (u & ~0xffffffULL) | ((uint64_t)ctx.rank << 16) | (uint64_t)i;
        }
        if (trial == 4) { /* the extremes of the key space (k = 0 must still take nothing) */
            keys[0] = ctx.rank == 0 ? UINT64_MAX : UINT64_MAX - 1 - (uint64_t)ctx.rank;
            keys[n - 1] = (uint64_t)ctx.rank;
        }
        qsort(keys, (size_t)n, sizeof *keys, cmp_u64_desc);
        int64_t total = 0, ks[16];
        MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        int nk = make_ks(total, ks);
        if (total > 10) { /* and a few random k */
            ks[nk++] = 3 + (int64_t)(cs_mix64((uint64_t)trial) % (uint64_t)(total - 3));
            ks[nk++] = 3 + (int64_t)(cs_mix64((uint64_t)trial + 99) % (uint64_t)(total - 3));
        }
        int ok = topk_case(keys, n, ks, nk);
        free(keys);
        MPI_ASSERT(ok);
    }
}
END_TEST

/* Keys as the frontier makes them: few distinct values (with ties across ranks), negative and
 * zero values, ids unique across ranks; the top-k must break value ties by the lower id. */
START_TEST(topk_frontier_keys)
{
    cs_rng r;
    cs_rng_init(&r, 78, CS_RNG_TEST, 0, (uint64_t)ctx.rank);
    const int64_t n = 500 + 37 * ctx.rank;
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    ck_assert(keys != NULL);
    for (int64_t i = 0; i < n; i++) {
        const float q = (float)((int)cs_rng_below(&r, 7) - 3) * 0.5f;
        const int64_t id = i * ctx.size + ctx.rank; /* interleaved ids */
        keys[i] = cs_frontier_key(q, id);
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_u64_desc);
    int64_t total = 0, ks[16];
    MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int nk = make_ks(total, ks);
    ks[nk++] = 123;
    MPI_ASSERT(topk_case(keys, n, ks, nk));
    free(keys);
}
END_TEST

/* ---- averaging ----------------------------------------------------------------------------- */

START_TEST(average_bit_identical_rank_order_mean)
{
    const int P = ctx.size;
    double *scratch = NULL;
    size_t scratch_cap = 0;
    static const int64_t sizes[] = {1, 169, 5000, 0, 77};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        const int64_t n = sizes[c];
        double *w = malloc(((size_t)n + 1) * sizeof *w);
        double *orig = malloc(((size_t)n * (size_t)P + 1) * sizeof *orig);
        double *res = malloc(((size_t)n * (size_t)P + 1) * sizeof *res);
        ck_assert(w != NULL && orig != NULL && res != NULL);
        cs_rng r;
        cs_rng_init(&r, 91, CS_RNG_TEST, c, (uint64_t)ctx.rank);
        for (int64_t i = 0; i < n; i++) /* magnitudes that make the summation order matter */
            w[i] = (cs_rng_uniform(&r) - 0.5) * ldexp(1.0, (int)cs_rng_below(&r, 80) - 40);
        if (n > 2) {
            w[0] = ctx.rank == 0 ? 1e16 : ctx.rank == P - 1 ? -1e16 : 1.0;
            w[1] = 0.1 * (ctx.rank + 1);
        }
        MPI_Allgather(w, (int)n, MPI_DOUBLE, orig, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
        cs_ctx_clear_error(&ctx);
        cs_err rc = cs_comm_average(&ctx, w, n, &scratch, &scratch_cap);
        MPI_ASSERT(rc == CS_OK);
        /* bit-identical on every rank */
        MPI_Allgather(w, (int)n * (int)sizeof(double), MPI_BYTE, res, (int)n * (int)sizeof(double),
                      MPI_BYTE, MPI_COMM_WORLD);
        int ok = 1;
        for (int q = 1; q < P; q++)
            ok &= memcmp(res, res + (size_t)q * (size_t)n, (size_t)n * sizeof(double)) == 0;
        /* the mean summed in rank order; dividing by P and multiplying by 1/P are the same for
         * P a power of two (the test's rank counts), else within one rounding */
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int q = 0; q < P; q++)
                s += orig[(size_t)q * (size_t)n + (size_t)i];
            const double want = s / P;
            if ((P & (P - 1)) == 0)
                bad += memcmp(&w[i], &want, sizeof want) != 0;
            else
                bad += fabs(w[i] - want) > 2.3e-16 * fabs(want);
        }
        if (bad > 0)
            fprintf(stderr, "rank %d: average n = %lld: %lld weights differ\n", ctx.rank,
                    (long long)n, (long long)bad);
        ok &= bad == 0;
        MPI_ASSERT(ok);
        free(w);
        free(orig);
        free(res);
    }
    free(scratch);
}
END_TEST

/* ---- exact sums and the global k-th key (the strict setting) ------------------------------ */

/* The same multiset of terms, dealt to the ranks in two different ways (round robin, and in
 * blocks in reverse order), sums to the same bits on every rank and at any rank count: the sum
 * of the terms in 128-bit fixed point computed here from all terms, serially. Terms of very
 * different magnitudes (where a floating-point sum depends on the order), negative terms, and
 * the saturation and NaN rules of cs_fix_from_double. */
START_TEST(fix_sum_exact_any_order)
{
    const int P = ctx.size;
    enum { N = 37, T = 400 };
    double terms[T];
    cs_rng r;
    cs_rng_init(&r, 5, CS_RNG_TEST, 0, 0); /* the same terms on every rank */
    for (int i = 0; i < T; i++)
        terms[i] = (cs_rng_uniform(&r) - 0.5) * ldexp(1.0, (int)cs_rng_below(&r, 100) - 60);
    terms[0] = 1e18;
    terms[1] = -1e18;
    terms[2] = 3e-19;
    int ok = 1;
    cs_fix want[N];
    memset(want, 0, sizeof want);
    for (int i = 0; i < T; i++)
        want[i % N] += cs_fix_from_double(terms[i]);
    for (int deal = 0; deal < 2; deal++) {
        cs_fix a[N];
        memset(a, 0, sizeof a);
        for (int i = 0; i < T; i++) {
            const int j = deal == 0 ? i : T - 1 - i; /* the order of the additions */
            const int owner = deal == 0 ? j % P : (int)((int64_t)j * P / T);
            if (owner == ctx.rank)
                a[j % N] += cs_fix_from_double(terms[j]);
        }
        cs_ctx_clear_error(&ctx);
        ok &= cs_comm_sum_fix(&ctx, a, N) == CS_OK;
        ok &= memcmp(a, want, sizeof a) == 0;
    }
    /* a floating-point sum of the same terms in the two orders differs: the test can tell */
    double f0 = 0.0, f1 = 0.0;
    for (int i = 0; i < T; i++) {
        f0 += terms[i];
        f1 += terms[T - 1 - i];
    }
    ok &= f0 != f1;
    /* rounding and saturation */
    ok &= cs_fix_from_double(1.0) == (cs_fix)1 << 64;
    ok &= cs_fix_from_double(-0.75) == -((cs_fix)3 << 62);
    ok &= cs_fix_from_double(ldexp(1.0, -65)) == 0;     /* a tie: to even */
    ok &= cs_fix_from_double(3 * ldexp(1.0, -65)) == 2; /* 1.5 ulp: to even */
    ok &= cs_fix_from_double(1e300) == cs_fix_from_double(ldexp(1.0, 62));
    ok &= cs_fix_from_double(-INFINITY) == -cs_fix_from_double(ldexp(1.0, 62));
    ok &= cs_fix_from_double(NAN) == 0;
    ok &= cs_fix_to_double(cs_fix_from_double(0.1)) == 0.1;
    ok &= cs_fix_to_double(cs_fix_from_double(-123.456)) == -123.456;
    MPI_ASSERT(ok);
}
END_TEST

/* cs_comm_kth_largest over unsorted keys against the k-th largest of all keys: random keys,
 * keys sharing their high bytes, ranks without keys, k = 1, k = total - 1, k >= total. */
START_TEST(kth_largest_unsorted)
{
    const int P = ctx.size;
    for (int trial = 0; trial < 10; trial++) {
        cs_rng r;
        cs_rng_init(&r, 13, CS_RNG_TEST, (uint64_t)trial, (uint64_t)ctx.rank);
        int64_t n = (int64_t)cs_rng_below(&r, 2000);
        if (trial % 3 == 1 && ctx.rank == P - 1)
            n = 0;
        uint64_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
        ck_assert(keys != NULL);
        for (int64_t i = 0; i < n; i++) {
            uint64_t u = cs_rng_u64(&r);
            if (trial % 2 == 1)
                u = 0xabcd000000000000ULL | (u & 0xffffffffffULL);
            keys[i] = (u & ~0xffffffULL) | ((uint64_t)ctx.rank << 16) | (uint64_t)i;
        }
        int64_t total = 0;
        MPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        int *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
        uint64_t *all = malloc(((size_t)total + 1) * sizeof *all);
        ck_assert(cnt != NULL && dsp != NULL && all != NULL);
        int mine = (int)n;
        MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
        for (int q = 0, at = 0; q < P; q++) {
            dsp[q] = at;
            at += cnt[q];
        }
        MPI_Allgatherv(keys, mine, MPI_UINT64_T, all, cnt, dsp, MPI_UINT64_T, MPI_COMM_WORLD);
        qsort(all, (size_t)total, sizeof *all, cmp_u64_desc);
        const int64_t ks[] = {1, 2, total / 3 + 1, total - 1, total, total + 5};
        int ok = 1;
        for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
            if (ks[c] < 1)
                continue;
            uint64_t cut = 1;
            ok &= cs_comm_kth_largest(&ctx, CS_OK, keys, n, ks[c], &cut) == CS_OK;
            /* the keys >= cut are exactly the top k: cut in (the (k+1)-th, the k-th largest] */
            const int good = ks[c] >= total ? cut == 0 : cut <= all[ks[c] - 1] && cut > all[ks[c]];
            if (!good)
                fprintf(stderr, "rank %d: trial %d k %lld: cut %llx, k-th %llx\n", ctx.rank, trial,
                        (long long)ks[c], (unsigned long long)cut,
                        (unsigned long long)(ks[c] >= total ? 0 : all[ks[c] - 1]));
            ok &= good;
        }
        free(keys);
        free(cnt);
        free(dsp);
        free(all);
        MPI_ASSERT(ok);
    }
}
END_TEST

/* cs_allreduce_fused: sums, maxima and ors in one collective; an error on one rank is agreed by
 * all (its code), and the collectives that follow still match. */
START_TEST(fused_sections_and_agreement)
{
    const int P = ctx.size, me = ctx.rank;
    int ok = 1;
    int64_t s[3] = {me, -1, (int64_t)1 << 40};
    uint64_t m[2] = {(uint64_t)me * 7 % 5, UINT64_MAX - (uint64_t)me}, b[2] = {1ULL << me, 0};
    ok &= cs_allreduce_fused(&ctx, CS_OK, s, 3, m, 2, b, 2) == CS_OK;
    int64_t m0 = 0;
    for (int r = 0; r < P; r++)
        m0 = (int64_t)r * 7 % 5 > m0 ? (int64_t)r * 7 % 5 : m0;
    ok &= s[0] == (int64_t)P * (P - 1) / 2 && s[1] == -P && s[2] == (int64_t)P << 40;
    ok &= m[0] == (uint64_t)m0 && m[1] == UINT64_MAX;
    ok &= b[0] == (P >= 64 ? UINT64_MAX : (1ULL << P) - 1) && b[1] == 0;
    /* a large buffer (beyond the stack one) */
    int64_t big[300];
    for (int i = 0; i < 300; i++)
        big[i] = i + me;
    ok &= cs_allreduce_fused(&ctx, CS_OK, big, 300, NULL, 0, NULL, 0) == CS_OK;
    for (int i = 0; i < 300; i++)
        ok &= big[i] == (int64_t)i * P + (int64_t)P * (P - 1) / 2;
    /* the last rank fails: every rank gets its code */
    const cs_err mine = me == P - 1 ? CS_ERR_LIMIT : CS_OK;
    int64_t x = 1;
    ok &= cs_allreduce_fused(&ctx, mine, &x, 1, NULL, 0, NULL, 0) == CS_ERR_LIMIT;
    cs_ctx_clear_error(&ctx);
    int64_t take = -1;
    ok &= cs_comm_topk_ex(&ctx, mine, NULL, 0, 5, 1, &take, NULL, NULL) == CS_ERR_LIMIT;
    ok &= take == 0;
    cs_ctx_clear_error(&ctx);
    MPI_ASSERT(ok);
}
END_TEST

/* ---- budget splits ------------------------------------------------------------------------- */

/* The reference split of B by demands d[0..P): floor shares, then one more to the largest
 * remainders, ties to the lower rank; the fixed split when all demands are 0. */
static void ref_split(int64_t B, const int64_t *d, int P, int64_t *share)
{
    __extension__ typedef __int128 i128;
    i128 sum = 0;
    for (int r = 0; r < P; r++)
        sum += d[r];
    if (sum == 0) {
        for (int r = 0; r < P; r++)
            share[r] = B / P + (r < B % P);
        return;
    }
    i128 rem[64];
    int64_t left = B;
    for (int r = 0; r < P; r++) {
        share[r] = (int64_t)((i128)B * d[r] / sum);
        rem[r] = (i128)B * d[r] % sum;
        left -= share[r];
    }
    for (; left > 0; left--) {
        int best = 0;
        for (int r = 1; r < P; r++)
            if (rem[r] > rem[best])
                best = r;
        share[best]++;
        rem[best] = -1;
    }
}

START_TEST(split_exact_and_proportional)
{
    const int P = ctx.size;
    ck_assert_int_ge(P, 1);
    ck_assert_int_le(P, 64);
    static const int64_t budgets[] = {0, 1, 2, 3, 5, 7, 100, 1000003, 1LL << 40, INT64_MAX / 2};
    int ok = 1;
    int64_t d[64], share[64], got[64];
    for (int kind = 0; kind < 7; kind++) {
        cs_rng r;
        cs_rng_init(&r, 55, CS_RNG_TEST, (uint64_t)kind, 0); /* the same draws on every rank */
        for (int q = 0; q < P; q++) {
            const uint64_t u = cs_rng_below(&r, 1000);
            d[q] = kind == 0   ? 0                          /* no demand anywhere */
                   : kind == 1 ? 5                          /* equal: remainders tie */
                   : kind == 2 ? (q == P - 1 ? 17 : 0)      /* one rank wants everything */
                   : kind == 3 ? (q == 0 ? 0 : (int64_t)u)  /* rank 0 wants nothing */
                   : kind == 4 ? (int64_t)u + 1             /* random */
                   : kind == 5 ? (int64_t)1 << (40 + q % 8) /* large demands */
                               : (int64_t)(q + 1) * 3;      /* 3, 6, 9, ..: exact thirds */
        }
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            const int64_t B = budgets[b];
            const int64_t mine = cs_comm_split(&ctx, B, d[ctx.rank]);
            MPI_Allgather(&mine, 1, MPI_INT64_T, got, 1, MPI_INT64_T, MPI_COMM_WORLD);
            ref_split(B, d, P, share);
            int64_t sum = 0, dsum = 0;
            for (int q = 0; q < P; q++) {
                sum += got[q];
                dsum += d[q];
            }
            int c_ok = sum == B; /* exact */
            for (int q = 0; q < P; q++) {
                c_ok &= got[q] == share[q] && got[q] >= 0;
                if (dsum > 0) { /* proportional: within one of B d / sum */
                    /* (long double: 64 mantissa bits, hence the relative slack) */
                    const long double exact = (long double)B * d[q] / dsum;
                    c_ok &= fabsl((long double)got[q] - exact) < 1.0L + exact * 1e-15L;
                    c_ok &= d[q] > 0 || got[q] == 0;
                } else {
                    c_ok &= got[q] == cs_comm_split_fixed(B, q, P);
                }
            }
            if (!c_ok && ctx.rank == 0)
                fprintf(stderr, "split kind %d B = %lld: rank 0 got %lld, want %lld (sum %lld)\n",
                        kind, (long long)B, (long long)got[0], (long long)share[0], (long long)sum);
            ok &= c_ok;
        }
    }
    MPI_ASSERT(ok);
}
END_TEST

START_TEST(split_fixed)
{
    int ok = 1;
    for (int P = 1; P <= 9; P++)
        for (int64_t B = 0; B < 40; B++) {
            int64_t sum = 0, mx = 0, mn = B;
            for (int q = 0; q < P; q++) {
                const int64_t s = cs_comm_split_fixed(B, q, P);
                sum += s;
                mx = s > mx ? s : mx;
                mn = s < mn ? s : mn;
                ok &= s == B / P + (q < B % P); /* the first B mod P ranks one more */
            }
            ok &= sum == B && mx - mn <= 1;
        }
    MPI_ASSERT(ok);
}
END_TEST

/* ---- exchange ------------------------------------------------------------------------------ */

/* Bytes of the box from rank s to rank d in round `round` (0 for some pairs; the own box too). */
static size_t box_len(int round, int s, int d)
{
    if (round == 2)
        return 0; /* nothing anywhere */
    if (round == 3)
        return s == 0 ? 3000 + (size_t)d : 0; /* only rank 0 sends */
    if ((s + d + round) % 3 == 0)
        return 0;
    return (size_t)(cs_mix64((uint64_t)(round * 10007 + s * 101 + d)) % 5000) +
           (round == 1 ? 1 : 0);
}

static unsigned char box_byte(int round, int s, int d, size_t i)
{
    return (unsigned char)(cs_mix64((uint64_t)round << 40 ^ (uint64_t)s << 32 ^ (uint64_t)d << 24 ^
                                    (uint64_t)i) >>
                           56);
}

/* The exchange's variants under test (loop index): sparse, sparse with boxes sent in pieces of
 * 97 bytes (several messages from one source, which must stay in order), alltoallv, census,
 * census with heads of 40 bytes and the rests in pieces of 97; the two-level node exchange with
 * this machine's one node, with nodes of ranks dealt in turn ({0, 2}, {1, 3} at 4 ranks: a
 * node's ranks not consecutive), and with a node per rank and the leaders' census in pieces. */
static void exchange_variant(cs_outbox *o, int variant)
{
    o->method = variant == 2   ? CS_EXCHANGE_ALLTOALLV
                : variant >= 5 ? CS_EXCHANGE_NODE
                : variant >= 3 ? CS_EXCHANGE_CENSUS
                               : CS_EXCHANGE_SPARSE;
    if (variant == 1 || variant == 4 || variant == 7)
        o->chunk = 97;
    if (variant == 4 || variant == 7)
        o->head_max = 40;
    if (variant == 6)
        setenv("CRAWLSIM_NODE_RANKS", "c2", 1);
    else if (variant == 7)
        setenv("CRAWLSIM_NODE_RANKS", "1", 1);
    else
        unsetenv("CRAWLSIM_NODE_RANKS");
}

START_TEST(exchange_boxes_in_rank_order)
{
    const int P = ctx.size, me = ctx.rank;
    cs_outbox o;
    MPI_ASSERT(cs_outbox_init(&ctx, &o, P) == CS_OK);
    exchange_variant(&o, _i);
    char *recv = NULL;
    size_t recv_cap = 0, recv_len = 0;
    cs_exchange_stats st;
    memset(&st, 0, sizeof st);
    int64_t sent_bytes = 0, sent_msgs = 0;
    unsigned char *tmp = malloc(8192);
    ck_assert(tmp != NULL);
    for (int round = 0; round < 5; round++) {
        int ok = 1;
        size_t queued = 0;
        for (int d = 0; d < P; d++) {
            const size_t len = box_len(round, me, d);
            /* in pieces of various sizes: the outbox appends */
            for (size_t i = 0; i < len;) {
                size_t piece = 1 + (i * 7 + (size_t)d) % 700;
                if (piece > len - i)
                    piece = len - i;
                for (size_t j = 0; j < piece; j++)
                    tmp[j] = box_byte(round, me, d, i + j);
                ok &= cs_outbox_put(&ctx, &o, d, tmp, piece) == CS_OK;
                i += piece;
            }
            queued += len;
            if (d != me) {
                sent_bytes += (int64_t)len;
                sent_msgs += len > 0;
            }
        }
        ok &= cs_outbox_bytes(&o) == queued;
        cs_ctx_clear_error(&ctx);
        cs_err rc = cs_comm_exchange(&ctx, &o, &recv, &recv_cap, &recv_len, &st);
        MPI_ASSERT(ok && rc == CS_OK);
        /* the boxes for this rank, from ranks 0, 1, .. in order */
        size_t want_len = 0;
        for (int s = 0; s < P; s++)
            want_len += box_len(round, s, me);
        ok &= recv_len == want_len && recv_cap >= recv_len;
        size_t off = 0;
        int64_t bad = 0;
        for (int s = 0; ok && s < P; s++) {
            const size_t len = box_len(round, s, me);
            for (size_t i = 0; i < len; i++)
                bad += (unsigned char)recv[off + i] != box_byte(round, s, me, i);
            off += len;
        }
        if (bad > 0 || !ok)
            fprintf(stderr, "rank %d round %d: received %zu bytes, want %zu, %lld wrong\n", me,
                    round, recv_len, want_len, (long long)bad);
        ok &= bad == 0;
        /* the outbox is cleared and keeps working */
        ok &= cs_outbox_bytes(&o) == 0;
        for (int d = 0; d < P; d++)
            ok &= o.len[d] == 0;
        /* statistics count what went to other ranks (the node exchange counts the messages it
         * sends, through the leaders, not the boxes) */
        ok &= st.bytes_sent == sent_bytes;
        ok &= o.method == CS_EXCHANGE_NODE || st.messages_sent == sent_msgs;
        ok &= st.wait >= 0.0 && st.transfer >= 0.0;
        MPI_ASSERT(ok);
    }
    free(tmp);
    free(recv);
    cs_outbox_fini(&o);
    cs_outbox_fini(&o); /* twice is fine */
}
END_TEST

/* A whole ladder of messages: each rank sends rank d exactly d + 1 records naming (src, dst,
 * sequence); the receiver decodes them in rank order. */
START_TEST(exchange_records)
{
    const int P = ctx.size, me = ctx.rank;
    cs_outbox o;
    MPI_ASSERT(cs_outbox_init(&ctx, &o, P) == CS_OK);
    exchange_variant(&o, _i);
    int ok = 1;
    for (int d = P - 1; d >= 0; d--) /* filled in reverse order: the exchange orders by rank */
        for (int j = 0; j <= d; j++) {
            const int32_t rec[3] = {me, d, j};
            ok &= cs_outbox_put(&ctx, &o, d, rec, sizeof rec) == CS_OK;
        }
    char *recv = NULL;
    size_t cap = 0, len = 0;
    cs_exchange_stats st;
    memset(&st, 0, sizeof st);
    MPI_ASSERT(ok && cs_comm_exchange(&ctx, &o, &recv, &cap, &len, &st) == CS_OK);
    ok = recv != NULL && len == (size_t)P * (size_t)(me + 1) * 3 * sizeof(int32_t);
    size_t k = 0;
    for (int s = 0; ok && s < P; s++)
        for (int j = 0; j <= me; j++, k++) {
            int32_t rec[3];
            memcpy(rec, recv + k * sizeof rec, sizeof rec);
            ok &= rec[0] == s && rec[1] == me && rec[2] == j;
        }
    ok &= o.method == CS_EXCHANGE_NODE || st.messages_sent == P - 1;
    MPI_ASSERT(ok);
    free(recv);
    cs_outbox_fini(&o);
}
END_TEST

/* Many exchanges in a row with one rank late in each (it sleeps before entering): the others
 * leave an exchange and send the next one's records while it still receives the last ones.
 * Each record names its round, so a record taken by the wrong exchange is found. Sparse
 * pattern: rank r sends to r + 1 and r + round (mod P). */
START_TEST(exchange_rounds_skewed)
{
    const int P = ctx.size, me = ctx.rank;
    cs_outbox o;
    MPI_ASSERT(cs_outbox_init(&ctx, &o, P) == CS_OK);
    exchange_variant(&o, _i);
    char *recv = NULL;
    size_t cap = 0, len = 0;
    int ok = 1;
    for (int round = 0; round < 40; round++) {
        const int to[2] = {(me + 1) % P, (me + round) % P};
        for (int j = 0; j < 2; j++) {
            const int32_t rec[3] = {round, me, j};
            ok &= cs_outbox_put(&ctx, &o, to[j], rec, sizeof rec) == CS_OK;
        }
        if (round % P == me) {
            struct timespec ts = {0, 3000000};
            nanosleep(&ts, NULL);
        }
        cs_exchange_stats st;
        memset(&st, 0, sizeof st);
        ok &= cs_comm_exchange(&ctx, &o, &recv, &cap, &len, &st) == CS_OK;
        /* expected: from each source s in order, its records for me (j = 0 then 1) */
        size_t k = 0, want = 0;
        for (int s = 0; s < P; s++)
            for (int j = 0; j < 2; j++) {
                const int d = j == 0 ? (s + 1) % P : (s + round) % P;
                if (d != me)
                    continue;
                int32_t rec[3] = {-1, -1, -1};
                if ((k + 1) * sizeof rec <= len)
                    memcpy(rec, recv + k * sizeof rec, sizeof rec);
                ok &= rec[0] == round && rec[1] == s && rec[2] == j;
                k++;
                want++;
            }
        ok &= len == want * 3 * sizeof(int32_t);
    }
    MPI_ASSERT(ok);
    free(recv);
    cs_outbox_fini(&o);
}
END_TEST

/* Two outboxes exchanged one after the other with no collective between (the visited notes,
 * then the link records), one rank late before the first: the others leave the first exchange
 * and send the second's records while it still receives the first's. Their channels keep the
 * two apart; each record names its outbox and round. */
START_TEST(exchange_two_channels)
{
    const int P = ctx.size, me = ctx.rank;
    cs_outbox o[2];
    for (int c = 0; c < 2; c++) {
        MPI_ASSERT(cs_outbox_init(&ctx, &o[c], P) == CS_OK);
        exchange_variant(&o[c], _i);
        o[c].channel = c;
    }
    char *recv = NULL;
    size_t cap = 0, len = 0;
    int ok = 1;
    for (int round = 0; round < 30; round++) {
        for (int c = 0; c < 2; c++) {
            const int32_t rec[3] = {round, me, c};
            ok &= cs_outbox_put(&ctx, &o[c], (me + 1 + c) % P, rec, sizeof rec) == CS_OK;
        }
        if (round % P == me) {
            struct timespec ts = {0, 3000000};
            nanosleep(&ts, NULL);
        }
        for (int c = 0; c < 2; c++) {
            cs_exchange_stats st;
            memset(&st, 0, sizeof st);
            ok &= cs_comm_exchange(&ctx, &o[c], &recv, &cap, &len, &st) == CS_OK;
            const int from = ((me - 1 - c) % P + P) % P;
            int32_t rec[3] = {-1, -1, -1};
            if (len == sizeof rec)
                memcpy(rec, recv, sizeof rec);
            ok &= len == sizeof rec && rec[0] == round && rec[1] == from && rec[2] == c;
        }
    }
    MPI_ASSERT(ok);
    free(recv);
    cs_outbox_fini(&o[0]);
    cs_outbox_fini(&o[1]);
}
END_TEST

/* ---- exclusive scan and the k smallest pairs ------------------------------------------------ */

/* cs_exscan_sum (recursive doubling, not MPI_Exscan) against the sums computed here, for 32- and
 * 64-bit integers, values that wrap a 32-bit sum, and rank 0's zeros. */
START_TEST(exscan_sums_of_lower_ranks)
{
    const int P = ctx.size, me = ctx.rank;
    enum { N = 5 };
    int32_t a[N], ga[N];
    int64_t b[N], gb[N];
    for (int i = 0; i < N; i++) {
        a[i] = (int32_t)(cs_mix64((uint64_t)(me * 31 + i)) >> 34) + (i == 4 ? INT32_MAX / 2 : 0);
        b[i] = (int64_t)(cs_mix64((uint64_t)(me * 17 + i)) >> 8);
    }
    cs_exscan_sum(&ctx, a, ga, N, CS_T_I32);
    cs_exscan_sum(&ctx, b, gb, N, CS_T_I64);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        uint32_t wa = 0;
        uint64_t wb = 0;
        for (int r = 0; r < me; r++) {
            wa += (uint32_t)((int32_t)(cs_mix64((uint64_t)(r * 31 + i)) >> 34) +
                             (i == 4 ? INT32_MAX / 2 : 0));
            wb += cs_mix64((uint64_t)(r * 17 + i)) >> 8;
        }
        ok &= (uint32_t)ga[i] == wa && (uint64_t)gb[i] == wb;
    }
    (void)P;
    MPI_ASSERT(ok);
}
END_TEST

/* Rank r's j-th pair for cs_comm_smallest: a few ranks have fewer than k, some keys repeat
 * (ties broken by id), ids unique over ranks. */
static int smallest_have(int r, int k)
{
    return r % 3 == 1 ? k / 2 : k;
}

static void smallest_pair(int r, int j, uint64_t *key, uint64_t *id)
{
    *key = cs_mix64((uint64_t)(r * 1000 + j)) % 5;
    *id = (uint64_t)r * 1000 + (uint64_t)j;
}

START_TEST(smallest_pairs_over_ranks)
{
    const int P = ctx.size, me = ctx.rank, k = 7;
    uint64_t *all = malloc((size_t)P * (size_t)k * 16), mine[2 * 7];
    ck_assert(all != NULL);
    int64_t n = 0;
    for (int r = 0; r < P; r++)
        for (int j = 0; j < smallest_have(r, k); j++, n++)
            smallest_pair(r, j, &all[2 * n], &all[2 * n + 1]);
    /* the expected: all pairs sorted by (key, id), insertion sort */
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i;
             j > 0 && (all[2 * j - 2] > all[2 * j] ||
                       (all[2 * j - 2] == all[2 * j] && all[2 * j - 1] > all[2 * j + 1]));
             j--) {
            const uint64_t k0 = all[2 * j], i0 = all[2 * j + 1];
            all[2 * j] = all[2 * j - 2];
            all[2 * j + 1] = all[2 * j - 1];
            all[2 * j - 2] = k0;
            all[2 * j - 1] = i0;
        }
    /* this rank's list: its own pairs sorted the same way, padded */
    int m = smallest_have(me, k);
    for (int j = 0; j < k; j++)
        mine[2 * j] = mine[2 * j + 1] = UINT64_MAX;
    for (int j = 0; j < m; j++) {
        uint64_t key, id;
        smallest_pair(me, j, &key, &id);
        int i = j;
        while (i > 0 &&
               (mine[2 * i - 2] > key || (mine[2 * i - 2] == key && mine[2 * i - 1] > id))) {
            mine[2 * i] = mine[2 * i - 2];
            mine[2 * i + 1] = mine[2 * i - 1];
            i--;
        }
        mine[2 * i] = key;
        mine[2 * i + 1] = id;
    }
    const int64_t got = cs_comm_smallest(&ctx, mine, k);
    const int64_t want = n < k ? n : k;
    int ok = got == want;
    for (int64_t j = 0; ok && j < want; j++)
        ok &= mine[2 * j] == all[2 * j] && mine[2 * j + 1] == all[2 * j + 1];
    free(all);
    MPI_ASSERT(ok);
}
END_TEST

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv);
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    Suite *s = suite_create("comm (MPI)");
    TCase *tc = tcase_create("collective");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, topk_random_unique_keys);
    tcase_add_test(tc, topk_frontier_keys);
    tcase_add_test(tc, average_bit_identical_rank_order_mean);
    tcase_add_test(tc, fix_sum_exact_any_order);
    tcase_add_test(tc, kth_largest_unsorted);
    tcase_add_test(tc, fused_sections_and_agreement);
    tcase_add_test(tc, split_exact_and_proportional);
    tcase_add_test(tc, split_fixed);
    tcase_add_loop_test(tc, exchange_boxes_in_rank_order, 0, 8);
    tcase_add_loop_test(tc, exchange_records, 0, 8);
    tcase_add_loop_test(tc, exchange_rounds_skewed, 0, 8);
    tcase_add_loop_test(tc, exchange_two_channels, 0, 8);
    tcase_add_test(tc, exscan_sums_of_lower_ranks);
    tcase_add_test(tc, smallest_pairs_over_ranks);
    suite_add_tcase(s, tc);
    int status = mpitest_run(s);
    MPI_Finalize();
    return status;
}
