/*
 * sim: a tick's selection: candidates from the frontier, the budget modes (global top-B,
 * proportional, fixed), politeness quotas and the MAX cap, and the strict setting's global picks.
 *
 * The order of a value policy's picks (every mode; the index, cs_findex, and the passes over the
 * frontier give it alike). The tick's budget Bt splits into nx exploring picks and Bt - nx greedy
 * ones: nx counts Bt Bernoulli(epsilon) draws of the policy stream (run seed, 2^62 + tick, 0) (the
 * global budget and the strict setting; per-rank budgets: each rank its share's count, stream
 * (..., rank + 1)). The greedy picks come first: the entries are walked in decreasing order of
 * cs_frontier_key(value, page id), that is higher value first (the float's order, -0 below +0)
 * and, between equal values, the lower page id; a walk skips an entry whose host is MAX-capped
 * (and, where the mode demotes, sets its value to -inf) or has no quota left this tick, and
 * accepts the others until it has its count. Then the exploring picks walk the entries not
 * taken the same way in the order of their tags (a hash of run seed and page id, above the id)
 * from the tick's cursor (a hash of run seed and tick) forward around the circle (explore_key,
 * sim_engine.h): a random arc of a random circular order, read from the frontier's hash table
 * in time proportional to the arc (cs_frontier_tags_up), no pass over the entries and no draw
 * per pick. The eviction drops the lowest keys cs_frontier_key(value, page id) (sim_evict.c).
 */
#include "sim/sim_engine.h"

#include <omp.h>

/* ---- selection ------------------------------------------------------------------------------ */

static void reset_hosts(sim *s)
{
    for (int64_t i = 0; i < s->h.n_touched; i++) {
        s->h.host_used[hslot(s, s->h.touched[i])] = 0;
        s->h.host_mark[hslot(s, s->h.touched[i])] = 0;
    }
    s->h.n_touched = 0;
}

/* Politeness: discovery never exceeds a host's quota by construction, re-crawls (which take the
 * quota first and are never deferred) may; the counter proves the one and counts the other. */
void sim_polite_check(sim *s, int64_t tick)
{
    for (int64_t i = 0; i < s->h.n_touched; i++) {
        int64_t h = s->h.touched[i], q = quota(s, h, tick);
        /* strict: a split host's count is global and known to every rank: rank 0 counts it */
        if (s->mode->host_global(s, h) && s->ctx->rank != 0)
            continue;
        if (s->h.host_used[hslot(s, h)] > q)
            s->m.c[C_POLITE] += s->h.host_used[hslot(s, h)] - q;
    }
    reset_hosts(s);
}

/*
 * Collective. The layout of an allgatherv: every rank's count (n here), their displacements in
 * rank order and *tot their sum. A count beyond int, or a total beyond int, fails on every rank
 * alike (the counts are the same everywhere): CS_ERR_LIMIT naming `what`.
 */
cs_err sim_gather_layout(cs_ctx *ctx, int64_t n, int *counts, int *displs, int64_t *tot,
                         const char *what)
{
    const int mine = n <= INT32_MAX ? (int)n : -1;
    cs_allgather(ctx, &mine, 1, counts, CS_T_INT);
    *tot = 0;
    for (int r = 0; r < ctx->size; r++) {
        if (counts[r] < 0 || *tot + counts[r] > INT32_MAX)
            return cs_fail(ctx, CS_ERR_LIMIT, "more than 2^31 - 1 %s in one tick", what);
        displs[r] = (int)*tot;
        *tot += counts[r];
    }
    return CS_OK;
}

/*
 * Collective. Strict setting: every rank learns the n values of every rank's sp[0..2n) pairs
 * (host, key) into s->sl.sp_all (rank order; *tot pairs). One allgather of the counts and one of
 * the pairs; nothing without split hosts.
 */
static cs_err gather_split(sim *s, int64_t n, int64_t *tot)
{
    cs_ctx *ctx = s->ctx;
    int64_t t = 0;
    cs_err rc = sim_gather_layout(ctx, 2 * n, s->sl.sp_counts, s->sl.sp_displs, &t,
                                  "split-host pick values");
    if (rc == CS_OK)
        rc = cs_grow(ctx, &s->sl.sp_all, &s->sl.sp_all_cap, (size_t)t + 2, sizeof *s->sl.sp_all,
                     "host quotas");
    CS_TRY_AGREE(ctx, rc);
    cs_allgatherv(ctx, s->sl.sp, (int)(2 * n), s->sl.sp_all, s->sl.sp_counts, s->sl.sp_displs,
                  CS_T_I64);
    *tot = t / 2;
fail:
    return rc;
}

/* Collective (strict setting with split hosts; Local otherwise). The tick's re-crawls take their
 * hosts' quotas before discovery selects (select_tick, or polite_check at a task's seed tick,
 * resets the counts); strict: a host with pages on several ranks counts every rank's. */
cs_err sim_refresh_quota(sim *s, const cs_recrawl_crawl *cr, int64_t n)
{
    cs_err rc = CS_OK;
    int64_t m = 0;
    const int global = s->mode->quotas_global(s);
    if (global)
        CS_TRY_AGREE(s->ctx, cs_grow(s->ctx, &s->sl.sp, &s->sl.sp_cap, 2 * (size_t)n + 2,
                                     sizeof *s->sl.sp, "host quotas"));
    for (int64_t i = 0; i < n; i++) {
        const int64_t h = host_of_local(s, cr[i].page);
        s->h.host_used[hslot(s, h)]++;
        touch(s, h);
        if (global && s->mode->host_global(s, h)) {
            s->sl.sp[2 * m] = h;
            s->sl.sp[2 * m++ + 1] = 0;
        }
    }
    if (global) {
        int64_t tot = 0;
        CS_TRY(s->ctx, gather_split(s, m, &tot));
        const int64_t mine0 = s->sl.sp_displs[s->ctx->rank] / 2;
        for (int64_t i = 0; i < tot; i++) {
            if (i >= mine0 && i < mine0 + m)
                continue; /* this rank's own, counted above */
            s->h.host_used[hslot(s, s->sl.sp_all[2 * i])]++;
            touch(s, s->sl.sp_all[2 * i]);
        }
    }
fail:
    return rc;
}

/* Keys below which a selection walk finds their hosts without waking the threads. */
#define WALK_PARALLEL 256

/* Frontier entries below which fill_keys runs on one thread. */
#define FILL_PARALLEL 4096

/* Local. The greedy keys >= floor of the entries not yet taken into s->sl.cands, in entry order;
 * returns how many (0 with *rc set when the scratch could not grow). One pass in parallel: each
 * thread takes a contiguous share of the entries and writes its keys from its share's first
 * index on (a share of e entries has at most e keys, so the threads' writes never meet), then
 * the shares' keys are moved together in share order; the keys and their order are those of one
 * serial pass, whatever the thread count. */
static int64_t fill_keys(sim *s, uint64_t floor, cs_err *rc)
{
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    uint64_t *c = s->sl.cands;
    const uint8_t *taken = s->sl.taken;
    const int T = v.n >= FILL_PARALLEL ? omp_get_max_threads() : 1;
    *rc =
        cs_grow(s->ctx, &s->sl.blk, &s->sl.blk_cap, (size_t)T + 1, sizeof *s->sl.blk, "selection");
    if (*rc != CS_OK)
        return 0;
    int64_t *blk = s->sl.blk; /* per share, its keys */
#pragma omp parallel for num_threads(T) if (T > 1) default(none)                                   \
    shared(v, c, taken, blk, floor, T) schedule(static)
    for (int t = 0; t < T; t++) {
        const int64_t a = v.n * t / T, e = v.n * (t + 1) / T;
        int64_t k = a;
        /* branch-free: a key is written, then kept by advancing k (k <= i: inside the share) */
        for (int64_t i = a; i < e; i++) {
            const uint64_t key = cs_frontier_key(v.q[i], v.id[i]);
            c[k] = key;
            k += !taken[i] & (key >= floor);
        }
        blk[t] = k - a;
    }
    int64_t n = blk[0];
    for (int t = 1; t < T; t++) { /* each share's keys move down, after those before it */
        memmove(c + n, c + v.n * t / T, (size_t)blk[t] * sizeof *c);
        n += blk[t];
    }
    return n;
}

/* The greedy keys' histogram: buckets of 16 bits of the key, two levels (the value's 32 bits). */
#define HIST_BITS 16
#define HIST_N (1 << HIST_BITS)
#define HIST_CHUNK 256 /* buckets per chunk of the histogram's sums */

/* The first round of the frontier's histogram is sim_evaluate's (no entry is taken yet). */
static int hist_counted(const sim *s)
{
    return s->sl.hist_fresh && !s->sl.any_taken;
}

/* Local. One round of the greedy keys' histogram: each of T threads counts into its own
 * histogram (integer counts: their sum does not depend on the thread count) the bits
 * [shift, shift + 16) of the keys whose bits above them are `prefix`, of keys[0..n) or, when keys
 * is NULL, of the frontier's entries not taken (their first round, shift 48, counted already when
 * hist_counted); then the histograms are added by chunks of buckets into tot,
 * and tot's sums per chunk into chunk (s->sl.hist's layout; the caller grew it for T). */
static void hist_round(sim *s, const uint64_t *keys, int64_t n, int shift, uint64_t prefix, int T)
{
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    const int counted = keys == NULL && shift == 64 - HIST_BITS && hist_counted(s);
    if (counted)
        T = s->sl.hist_T;
    s->sl.hist_fresh = 0; /* a walk may demote entries: their count goes stale */
    uint32_t *hist = s->sl.hist, *tot = hist + (size_t)T * HIST_N, *chunk = tot + HIST_N;
    const uint8_t *taken = s->sl.taken;
#pragma omp parallel num_threads(T) default(none)                                                  \
    shared(v, keys, n, taken, hist, tot, chunk, T, counted) firstprivate(shift, prefix)
    {
        uint32_t *h = hist + (size_t)omp_get_thread_num() * HIST_N;
        if (!counted)
            memset(h, 0, HIST_N * sizeof *h);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < (counted ? 0 : keys ? n : v.n); i++) {
            const uint64_t key = keys ? keys[i] : cs_frontier_key(v.q[i], v.id[i]);
            if ((keys || !taken[i]) && (key >> shift) >> HIST_BITS == prefix)
                h[(key >> shift) & (HIST_N - 1)]++;
        }
#pragma omp for schedule(static)
        for (int c = 0; c < HIST_N / HIST_CHUNK; c++) {
            uint32_t sum = 0;
            for (int b = c * HIST_CHUNK; b < (c + 1) * HIST_CHUNK; b++) {
                uint32_t x = 0;
                for (int t = 0; t < T; t++)
                    x += hist[(size_t)t * HIST_N + (size_t)b];
                tot[b] = x;
                sum += x;
            }
            chunk[c] = sum;
        }
    }
}

/* The largest bucket of a round (hist_round) with `want` keys at or above it, or -1 when there
 * are fewer; *above: the keys above it. */
static int hist_cut(const sim *s, int T, int64_t want, int64_t *above)
{
    const uint32_t *tot = s->sl.hist + (size_t)T * HIST_N, *chunk = tot + HIST_N;
    *above = 0;
    int c = HIST_N / HIST_CHUNK - 1;
    while (c >= 0 && *above + chunk[c] < want)
        *above += chunk[c--];
    if (c < 0)
        return -1;
    int b = (c + 1) * HIST_CHUNK - 1;
    while (*above + tot[b] < want)
        *above += tot[b--];
    return b;
}

/* Local. A floor with at least `target` keys of the entries not yet taken at or above it (0 when
 * there are fewer), and few more: the largest bucket of the keys' high 16 bits with `target` keys
 * at or above it. When that bucket holds more keys than `target`, *rest > 0: the keys collected
 * at or above this floor are to be counted again by their next 16 bits (refine_keys), *rest of
 * the bucket's being wanted. */
static uint64_t hist_floor(sim *s, int64_t target, int64_t *rest, cs_err *rc)
{
    const int T = omp_get_max_threads();
    const size_t need = ((size_t)T + 1) * HIST_N + HIST_N / HIST_CHUNK;
    *rest = 0;
    *rc = cs_grow(s->ctx, &s->sl.hist, &s->sl.hist_cap, need, sizeof *s->sl.hist, "selection");
    if (*rc != CS_OK)
        return 0;
    const int Tc = hist_counted(s) ? s->sl.hist_T : T; /* the round's histograms */
    hist_round(s, NULL, 0, 64 - HIST_BITS, 0, T);
    int64_t above = 0;
    const int b = hist_cut(s, Tc, target, &above);
    if (b < 0)
        return 0; /* fewer keys than wanted: all of them */
    const uint32_t *tot = s->sl.hist + (size_t)Tc * HIST_N;
    if (tot[b] > (uint64_t)target)
        *rest = target - above;
    return (uint64_t)b << (64 - HIST_BITS);
}

/* Local. The second round of hist_floor's floor on the keys collected at or above it,
 * s->sl.cands[0..n) (fill_keys): *floor gets the largest bucket of its bucket's next 16 bits
 * with `rest` keys at or above it, and the keys below it leave cands (their order kept); returns
 * how many stay. The keys and the floor are those of that round over the whole frontier. */
static int64_t refine_keys(sim *s, int64_t n, uint64_t *floor, int64_t rest)
{
    const int shift = 64 - 2 * HIST_BITS;
    const int T = n >= FILL_PARALLEL ? omp_get_max_threads() : 1;
    uint64_t *c = s->sl.cands;
    hist_round(s, c, n, shift, *floor >> (shift + HIST_BITS), T);
    int64_t above = 0;
    const int b = hist_cut(s, T, rest, &above);
    CS_ASSERT(b >= 0); /* the bucket holds more than rest keys */
    *floor |= (uint64_t)b << shift;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        c[k] = c[i];
        k += c[i] >= *floor;
    }
    return k;
}

/* Entries per part of sim_evaluate (a multiple of 16, the evaluation's vector step). */
#define EVAL_PART 2048

/* Local. The policy's evaluate_all, and the greedy keys' first histogram round (hist_round) in
 * the same pass: each thread values a part of the entries and counts its keys' high 16 bits
 * while they are in cache, so that the tick's first greedy selection does not pass over the
 * frontier to count them. The values are evaluate_all's; a walk that demotes an entry, and the
 * tick's end, leave the counts unused (hist_fresh). */
void sim_evaluate(sim *s)
{
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    const int T = omp_get_max_threads();
    const size_t need = ((size_t)T + 1) * HIST_N + HIST_N / HIST_CHUNK;
    s->sl.hist_fresh = 0;
    if (s->ops->evaluate_part == NULL || cs_frontier_index(s->fr) != NULL ||
        cs_grow(s->ctx, &s->sl.hist, &s->sl.hist_cap, need, sizeof *s->sl.hist, "selection") !=
            CS_OK) {
        s->ops->evaluate_all(s->pol, &v);
        return;
    }
    const cs_discover_ops *ops = s->ops;
    void *pol = s->pol;
    uint32_t *hist = s->sl.hist;
#pragma omp parallel num_threads(T) default(none) shared(v, ops, pol, hist)
    {
        uint32_t *h = hist + (size_t)omp_get_thread_num() * HIST_N;
        memset(h, 0, HIST_N * sizeof *h);
#pragma omp for schedule(static)
        for (int64_t a = 0; a < v.n; a += EVAL_PART) {
            const int64_t e = a + EVAL_PART < v.n ? a + EVAL_PART : v.n;
            ops->evaluate_part(pol, &v, a, e - a);
            for (int64_t i = a; i < e; i++)
                h[cs_frontier_key(v.q[i], 0) >> (64 - HIST_BITS)]++;
        }
    }
    s->sl.hist_fresh = 1;
    s->sl.hist_T = T;
}

/*
 * Local. The walk of keys top[0..r) (ascending) in decreasing order, accepting into
 * s->sl.acc[*k..] under the host quotas until *k = want: the keys' hosts (reads at random places)
 * on the rank's threads, then the walk, which depends on the counts before each key, alone.
 * A key of a MAX-capped host is skipped (and, where the mode demotes, its entry demoted so that
 * later ticks do not walk it first); so is a key whose host has no quota left.
 */
static cs_err walk_keys(sim *s, const uint64_t *top, int64_t r, int64_t tick, int64_t want,
                        int64_t *k)
{
    cs_err rc = CS_OK;
    CS_TRY(s->ctx, cs_grow(s->ctx, &s->sl.khost, &s->sl.khost_cap, (size_t)r + 1,
                           sizeof *s->sl.khost, "selection"));
    int64_t *kh = s->sl.khost;
    const sim *cs = s;
#pragma omp parallel for if (r >= WALK_PARALLEL) default(none) shared(cs, top, kh, r)              \
    schedule(static)
    for (int64_t i = 0; i < r; i++) {
        if (i + 16 < r)
            prefetch_host(cs, top[i + 16]);
        kh[i] = host_of_key(cs, top[i]);
    }
    for (int64_t i = r - 1; i >= 0 && *k < want; i--) { /* decreasing key order */
        const int64_t h = kh[i];
        if (i >= 8) { /* that host's counters 8 keys ahead */
            const int64_t h8 = kh[i - 8];
            __builtin_prefetch(&s->h.host_used[hslot(s, h8)]);
            __builtin_prefetch(&s->h.host_mark[hslot(s, h8)]);
            if (s->h.host_k != NULL)
                __builtin_prefetch(&s->h.host_k[h8]);
        }
        if (capped(s, h, 1)) {
            if (capped(s, h, 0) && s->mode->demotes)
                CS_TRY(s->ctx, cs_frontier_set_value(
                                   s->ctx, s->fr,
                                   cs_frontier_find(s->fr, cs_frontier_key_id(top[i])), -INFINITY));
            continue;
        }
        const int64_t hs = hslot(s, h);
        if (s->h.host_used[hs] >= quota(s, h, tick))
            continue;
        s->h.host_used[hs]++;
        if (!s->h.host_mark[hs]) {
            s->h.host_mark[hs] = 1;
            s->h.touched[s->h.n_touched++] = (int32_t)h;
        }
        s->sl.acc[(*k)++] = top[i];
    }
fail:
    return rc;
}

/* Keys a walk of the index reads at first (the walk then reads twice as many each round). */
#define INDEX_CHUNK(want) ((want) + (want) / 2 + 64)

/*
 * Local. candidates() of greedy keys on a frontier that keeps its keys in order
 * (cs_frontier_index): the keys are read from the index in decreasing order, in chunks, the
 * entries taken before this tick skipped, and each chunk walked as candidates walks its sorted
 * keys, until the walk has `want` or the keys run out. The walk sees the keys in the order a sort
 * of all keys gives, so it accepts the same keys and demotes the same entries (an entry demoted
 * by this walk moves to the index's end, where a walk that gets that far meets it again and
 * skips it again: its host is MAX-capped); the cost is O(log n) per key read, whatever the
 * frontier's size.
 */
static cs_err candidates_indexed(sim *s, int64_t tick, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    int64_t k = 0;
    uint64_t bound = UINT64_MAX;
    for (int64_t chunk = INDEX_CHUNK(want); k < want; chunk *= 2) {
        CS_TRY(ctx, cs_grow(ctx, &s->sl.cands, &s->sl.cands_cap, (size_t)chunk + 1,
                            sizeof *s->sl.cands, "selection"));
        CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)chunk + 1,
                            sizeof *s->sl.sort_tmp, "selection"));
        int64_t n = 0;
        CS_TRY(ctx, cs_frontier_index_down(ctx, s->fr, bound, s->sl.cands, chunk, &n));
        int64_t r = 0; /* the entries not taken, ascending (walk_keys' order) */
        for (int64_t i = n - 1; i >= 0; i--)
            if (!s->sl.any_taken ||
                !s->sl.taken[cs_frontier_find(s->fr, cs_frontier_key_id(s->sl.cands[i]))])
                s->sl.sort_tmp[r++] = s->sl.cands[i];
        CS_TRY(ctx, walk_keys(s, s->sl.sort_tmp, r, tick, want, &k));
        if (n < chunk || s->sl.cands[n - 1] == 0)
            break; /* every key was read */
        bound = s->sl.cands[n - 1] - 1;
    }
    memcpy(s->sl.cands, s->sl.acc, (size_t)k * sizeof *s->sl.cands);
    *got = k;
fail:
    return rc;
}

/*
 * Local. candidates() of exploring keys: the entries' tags are read from the frontier's hash
 * table in increasing order from the tick's cursor to the circle's end, then from its start to
 * the cursor (cs_frontier_tags_up), in chunks, the entries taken before this tick skipped, and
 * each chunk walked by its exploration keys (decreasing as the tags increase) until the walk has
 * `want` or the tags run out. The cost is proportional to the tags read, whatever the
 * frontier's size.
 */
static cs_err candidates_explore(sim *s, int64_t tick, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const uint64_t cur = explore_cursor(s, tick);
    uint64_t lo = cur, hi = UINT64_MAX;
    int wrapped = 0;
    int64_t k = 0;
    CS_TRY(ctx, cs_grow(ctx, &s->sl.cands, &s->sl.cands_cap, (size_t)want + 1, sizeof *s->sl.cands,
                        "selection"));
    for (int64_t chunk = INDEX_CHUNK(want); k < want; chunk *= 2) {
        const uint64_t *tg;
        int64_t n = 0;
        CS_TRY(ctx, cs_frontier_tags_up(ctx, s->fr, lo, hi, chunk, &tg, &n));
        CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)n + 1,
                            sizeof *s->sl.sort_tmp, "selection"));
        int64_t r = 0; /* the entries not taken, by ascending exploration key (walk_keys' order) */
        for (int64_t i = n - 1; i >= 0; i--)
            if (!s->sl.any_taken || !s->sl.taken[cs_frontier_find(s->fr, (int64_t)(uint32_t)tg[i])])
                s->sl.sort_tmp[r++] = explore_key(cur, tg[i]);
        CS_TRY(ctx, walk_keys(s, s->sl.sort_tmp, r, tick, want, &k));
        if (n >= chunk && tg[n - 1] < hi) { /* (fewer than the chunk: the range is read) */
            lo = tg[n - 1] + 1;
        } else if (!wrapped && cur > 0) { /* the circle's end: on from its start */
            wrapped = 1;
            lo = 0;
            hi = cur - 1;
            chunk = INDEX_CHUNK(want) / 2;
        } else {
            break; /* every tag was read */
        }
    }
    memcpy(s->sl.cands, s->sl.acc, (size_t)k * sizeof *s->sl.cands);
    *got = k;
fail:
    return rc;
}

/*
 * Local. The best `want` entries not yet taken, in decreasing key order, under the host quotas
 * (s->h.host_used counts them): into s->sl.cands[0..*got). explore: the exploring picks' order
 * (candidates_explore) instead of values.
 *
 * The keys are walked in decreasing order, m at a time: the best m of the keys not yet walked
 * are selected (quickselect) and sorted, and the walk accepts them under the quotas until it
 * has `want`. When the quotas skip too many, the walk goes on with the next 2m keys, so the
 * keys and quota decisions already made stand (the walk is one pass over the sorted keys, in
 * rounds).
 *
 * A floor spares the quickselect most of the frontier: only keys >= floor are collected, at
 * least POOL * m of them, and their best m are the frontier's best m; when the walk runs out of
 * them before it has `want`, it is undone and repeated over all keys. So the floor changes the
 * work, never the result. Greedy keys find their floor with a histogram of their high 16 bits
 * (hist_floor) and, when its bucket holds too many, of that bucket's next 16 bits, counted on the
 * keys collected at or above the first floor (refine_keys).
 */
#define POOL 4

static cs_err candidates(sim *s, int explore, int64_t tick, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t size = cs_frontier_size(s->fr);
    *got = 0;
    if (want <= 0 || size == 0)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->sl.acc, &s->sl.acc_cap, (size_t)want + 1, sizeof *s->sl.acc,
                        "selection"));
    if (explore)
        return candidates_explore(s, tick, want, got);
    if (cs_frontier_index(s->fr) != NULL)
        return candidates_indexed(s, tick, want, got);
    CS_TRY(ctx, cs_grow(ctx, &s->sl.cands, &s->sl.cands_cap, (size_t)size + 1, sizeof *s->sl.cands,
                        "selection"));
    for (int64_t m = want + want / 2 + 64;; m *= 2) {
        uint64_t floor = 0;
        int64_t rest = 0;
        if (2 * POOL * m < size)
            floor = hist_floor(s, POOL * m, &rest, &rc);
        int64_t n = rc == CS_OK ? fill_keys(s, floor, &rc) : 0;
        if (rc == CS_OK && rest > 0)
            n = refine_keys(s, n, &floor, rest);
        if (rc == CS_OK && n < m && floor > 0) {
            floor = 0;
            n = fill_keys(s, 0, &rc);
        }
        CS_TRY(ctx, rc);
        if (m < n)
            cs_select_u64(s->sl.cands, n, n - m); /* the m largest keys last */
        /* the walk in rounds: cands[0..pool) are the keys not walked yet, all below the walked
         * ones; the round's r keys are the pool's largest, last */
        int64_t k = 0, pool = n, r = m < n ? m : n;
        for (;;) {
            uint64_t *top = s->sl.cands + (pool - r);
            CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)r + 1,
                                sizeof *s->sl.sort_tmp, "selection"));
            cs_sort_u64(top, r, s->sl.sort_tmp);
            CS_TRY(ctx, walk_keys(s, top, r, tick, want, &k));
            pool -= r;
            if (k == want || pool == 0)
                break;
            r = 2 * r < pool ? 2 * r : pool; /* the quotas skipped too many: the next keys */
            if (r < pool)
                cs_select_u64(s->sl.cands, pool, pool - r);
        }
        if (k == want || floor == 0) { /* or all of the frontier was walked */
            memcpy(s->sl.cands, s->sl.acc, (size_t)k * sizeof *s->sl.cands);
            *got = k;
            return CS_OK;
        }
        /* the keys above the floor ran out: undo this walk's counts and take all keys */
        for (int64_t i = 0; i < k; i++)
            s->h.host_used[hslot(s, host_of_key(s, s->sl.acc[i]))]--;
        m = n > m ? n : m;
    }
fail:
    return rc;
}

/* Local. Room in s->sl.sel for `got` more slots: then keep() of at most `got` cannot fail, and
 * this step's error joins the agreement of the top-k that follows it. */
static cs_err reserve(sim *s, int64_t nsel, int64_t got)
{
    return cs_grow(s->ctx, &s->sl.sel, &s->sl.sel_cap, (size_t)(nsel + got) + 1, sizeof *s->sl.sel,
                   "selection");
}

/* Candidates from which keep() looks their entries up on the rank's threads. */
#define KEEP_PARALLEL 128

/* Local. Keeps the first `take` candidates: marks them taken, appends their slots to s->sl.sel
 * (reserve() made room) and recounts the host quotas for exactly them. */
static void keep(sim *s, int64_t got, int64_t take, int64_t *nsel)
{
    const sim *cs = s;
    const uint64_t *cands = s->sl.cands;
    int32_t *used = s->h.host_used;
    /* the candidates not taken give their hosts' counts back (integer decrements: any order) */
#pragma omp parallel for if (got - take >= KEEP_PARALLEL) default(none)                            \
    shared(cs, cands, used, take, got) schedule(static)
    for (int64_t i = take; i < got; i++) {
        if (i + 16 < got)
            prefetch_host(cs, cands[i + 16]);
        __atomic_fetch_sub(&used[hslot(cs, host_of_key(cs, cands[i]))], 1, __ATOMIC_RELAXED);
    }
    CS_ASSERT((size_t)(*nsel + take) < s->sl.sel_cap || take == 0);
    const cs_frontier *fr = s->fr;
    uint8_t *taken = s->sl.taken;
    int64_t *sel = s->sl.sel + *nsel;
    /* the candidates are distinct pages: each writes its own slot */
#pragma omp parallel for if (take >= KEEP_PARALLEL) default(none)                                  \
    shared(fr, cands, taken, sel, take) schedule(static)
    for (int64_t i = 0; i < take; i++) {
        if (i + 16 < take)
            cs_frontier_prefetch(fr, cs_frontier_key_id(cands[i + 16]), 1);
        if (i + 8 < take)
            cs_frontier_prefetch(fr, cs_frontier_key_id(cands[i + 8]), 2);
        int64_t slot = cs_frontier_find(fr, cs_frontier_key_id(cands[i]));
        CS_ASSERT(slot >= 0);
        taken[slot] = 1;
        sel[i] = slot;
    }
    *nsel += take;
    s->sl.any_taken |= take > 0;
}

/* Collective. The global top-k of this rank's candidates (keys are all a rank needs to
 * search on), kept; local: this rank's code of the steps before, agreed with the search. */
static cs_err keep_global(sim *s, cs_err local, int64_t got, int64_t k, int64_t *nsel)
{
    int64_t take = 0;
    if (local == CS_OK)
        local = reserve(s, *nsel, got);
    cs_err rc = cs_comm_topk_ex(s->ctx, local, s->sl.cands, got, k, 0, &take, NULL, NULL);
    if (rc == CS_OK)
        keep(s, got, take, nsel);
    return rc;
}

/*
 * Collective. The global top-k of all ranks' candidates (explore: exploring keys), kept. Each rank
 * first proposes about its fair share (k / P plus a margin) instead of k, which halves the keys
 * sorted and walked at 2 ranks. It is exact all the same: a rank's unproposed keys are below its
 * last proposed one, so they can only belong to the top-k when every one of its proposals did;
 * if that happens on any rank (the question fused into the search, cs_comm_topk_ex), every rank
 * proposes k and the search is repeated. local: this rank's code of the steps before, agreed
 * with the search.
 */
static cs_err pick_global(sim *s, cs_err local, int explore, int64_t tick, int64_t k, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    int64_t want = k;
    if (ctx->size > 1) {
        const int64_t share = k / ctx->size + k / (4 * ctx->size) + 64;
        want = share < k ? share : k;
    }
    for (;;) {
        int64_t got = 0, take = 0;
        int any = 0;
        if (local == CS_OK)
            local = candidates(s, explore, tick, want, &got);
        if (local == CS_OK)
            local = reserve(s, *nsel, got);
        CS_TRY(ctx, cs_comm_topk_ex(ctx, local, s->sl.cands, got, k, want < k && got == want, &take,
                                    &any, NULL));
        if (!any) {
            keep(s, got, take, nsel);
            return CS_OK;
        }
        keep(s, got, 0, nsel); /* give the host quotas back */
        want = k;
    }
fail:
    return rc;
}

static int pair_desc(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* (host, key): host ascending, key descending */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (uint64_t)x[1] > (uint64_t)y[1] ? -1 : (uint64_t)x[1] < (uint64_t)y[1];
}

/*
 * Collective. The strict setting's pick: exactly what one rank holding the whole frontier would
 * select, whatever the partition. That selection walks the keys in decreasing order and accepts
 * a key while its host has quota left, so it takes the global top-k of the union over hosts of
 * each host's best (quota left) keys. Each rank walks its own keys under the global counts of
 * its hosts (host_used; a host owned by this rank alone is exact already); the walk's keys of
 * hosts with pages on several ranks (split hosts) are then gathered on every rank, which keeps,
 * per split host, the best (quota left) of them (sp_before: the host's global count before
 * this pick) and drops the rest; the global top-k of what remains is found with cs_comm_topk_ex.
 * A rank whose walk stopped at `want` keys and whose keys were all taken may hold better ones
 * unwalked (the question fused into the search): then every rank walks twice as far and the
 * search is repeated (as pick_global). Finally every rank counts the split hosts' accepted keys
 * (those at or above the smallest taken key over all ranks that passed their host's cut), so
 * the global counts stay exact. local: this rank's code of the steps before, agreed with the
 * search's first collective.
 */
static cs_err pick_strict(sim *s, cs_err local, int explore, int64_t tick, int64_t k, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t rate = s->cfg->crawl.host_rate;
    const int split = s->h.any_split && rate > 0;
    int64_t want = k;
    if (ctx->size > 1) {
        const int64_t share = k / ctx->size + k / (4 * ctx->size) + 64;
        want = share < k ? share : k;
    }
    if (k <= 0) /* (the caller agreed on its code then) */
        return local;
    for (;;) {
        int64_t got = 0, take = 0, kept = 0, tot = 0;
        if (local == CS_OK)
            local = candidates(s, explore, tick, want, &got);
        if (local == CS_OK)
            local = reserve(s, *nsel, got);
        if (split) {
            /* this walk's split-host keys, and their hosts' counts before it */
            if (local == CS_OK)
                local = cs_grow(ctx, &s->sl.sp, &s->sl.sp_cap, 2 * (size_t)got + 2,
                                sizeof *s->sl.sp, "host quotas");
            int64_t m = 0;
            for (int64_t i = 0; local == CS_OK && i < got; i++) {
                const int64_t h = host_of_key(s, s->sl.cands[i]);
                if (host_split(s, h)) {
                    s->sl.sp[2 * m] = h;
                    s->sl.sp[2 * m++ + 1] = (int64_t)s->sl.cands[i];
                }
            }
            CS_TRY_AGREE(ctx, local);
            CS_TRY(ctx, gather_split(s, m, &tot));
            for (int64_t i = 0; i < tot; i++)
                s->h.sp_before[s->sl.sp_all[2 * i]] = s->h.host_used[hslot(s, s->sl.sp_all[2 * i])];
            for (int64_t i = 0; i < m; i++)
                s->h.sp_before[s->sl.sp[2 * i]]--; /* this walk's own picks */
            /* per split host, its best (rate - count before) keys pass */
            qsort(s->sl.sp_all, (size_t)tot, 2 * sizeof *s->sl.sp_all, pair_desc);
            /* filter this rank's candidates in place (order kept); dropped keys give their
             * quota back */
            for (int64_t i = 0; i < got; i++) {
                const int64_t h = host_of_key(s, s->sl.cands[i]);
                int pass = 1;
                if (host_split(s, h)) {
                    /* binary search of (h, key) among the sorted pairs: its rank in h */
                    const int64_t key[2] = {h, (int64_t)s->sl.cands[i]};
                    const int64_t *at = bsearch(key, s->sl.sp_all, (size_t)tot,
                                                2 * sizeof *s->sl.sp_all, pair_desc);
                    CS_ASSERT(at != NULL);
                    int64_t first = (at - s->sl.sp_all) / 2;
                    while (first > 0 && s->sl.sp_all[2 * (first - 1)] == h)
                        first--;
                    const int64_t rank_in_h = (at - s->sl.sp_all) / 2 - first;
                    pass = rank_in_h < rate - s->h.sp_before[h];
                }
                if (pass)
                    s->sl.cands[kept++] = s->sl.cands[i];
                else
                    s->h.host_used[hslot(s, h)]--;
            }
        } else {
            kept = got;
        }
        int any = 0;
        uint64_t cut = 0; /* the taken keys over all ranks are exactly the kept keys >= cut */
        CS_TRY(ctx, cs_comm_topk_ex(ctx, local, s->sl.cands, kept, k, got == want && kept < k,
                                    &take, &any, &cut));
        if (any) {
            keep(s, kept, 0, nsel); /* give the host quotas back */
            if (split)              /* and the split hosts' counts their values before this walk */
                for (int64_t i = 0; i < tot; i++)
                    s->h.host_used[hslot(s, s->sl.sp_all[2 * i])] =
                        s->h.sp_before[s->sl.sp_all[2 * i]];
            want *= 2;
            continue;
        }
        keep(s, kept, take, nsel);
        if (split) {
            /* the split hosts' global counts: their gathered keys that passed and were taken */
            for (int64_t i = 0; i < tot; i++)
                s->h.host_used[hslot(s, s->sl.sp_all[2 * i])] = s->h.sp_before[s->sl.sp_all[2 * i]];
            for (int64_t i = 0, j; i < tot; i = j) {
                const int64_t h = s->sl.sp_all[2 * i];
                for (j = i; j < tot && s->sl.sp_all[2 * j] == h; j++)
                    if (j - i < rate - s->h.sp_before[h] &&
                        (uint64_t)s->sl.sp_all[2 * j + 1] >= cut)
                        s->h.host_used[hslot(s, h)]++;
                touch(s, h);
            }
        }
        return CS_OK;
    }
fail:
    return rc;
}

/* Binomial(n, p) by counting Bernoulli draws of one stream (n is a tick's budget). */
static int64_t binomial(uint64_t seed, uint64_t id, uint64_t sub, int64_t n, double p)
{
    if (p <= 0.0)
        return 0;
    cs_rng r;
    cs_rng_init(&r, seed, CS_RNG_POLICY, id, sub);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += cs_rng_uniform(&r) < p;
    return k;
}

/*
 * Collective. Selects this tick's fetches from the frontier into s->sl.sel (frontier slots, in
 * selection order): greedy then exploration picks, by the budget mode.
 */
/* Local. The engine's answer to a selecting policy about a candidate page (discover.h). */
static int admit(void *eng, int64_t page)
{
    sim *s = eng;
    const int64_t e = cs_frontier_find(s->fr, page);
    if (e < 0)
        return CS_ADMIT_NEVER; /* fetched or evicted */
    const int64_t h = host_of_page(s, page);
    if (capped(s, h, 0))
        return CS_ADMIT_NEVER;
    const int64_t hs = hslot(s, h);
    if (s->sl.taken[e] || capped(s, h, 1) || s->h.host_used[hs] >= quota(s, h, s->sl.sel_tick))
        return CS_ADMIT_LATER;
    s->sl.taken[e] = 1;
    s->sl.any_taken = 1;
    s->h.host_used[hs]++;
    touch(s, h);
    return CS_ADMIT_OK;
}

/* Local. A selecting policy's picks of this rank: their keys into s->sl.cands[0..*got). */
static cs_err propose(sim *s, int64_t tick, int64_t step, int64_t want, int64_t *got)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    *got = 0;
    CS_TRY(ctx, cs_grow(ctx, &s->sl.cands, &s->sl.cands_cap, (size_t)want + 1, sizeof *s->sl.cands,
                        "selection"));
    cs_discover_select a;
    memset(&a, 0, sizeof a);
    a.want = want;
    a.tick = (uint64_t)tick;
    a.step = step;
    a.admit = admit;
    a.eng = s;
    a.keys = s->sl.cands;
    s->sl.sel_tick = tick;
    CS_TRY(ctx, s->ops->select(s->pol, ctx, &a));
    *got = a.n;
fail:
    return rc;
}

/* Local. This rank's share of the tick's budget Bt under the fixed budget: Bt / P, and one more
 * for Bt mod P ranks that rotate with the tick, so that a remainder held by ranks with nothing to
 * fetch (B below P, or the run's last pages, in a world whose pages all sit on other ranks)
 * moves on to the others instead of stalling the run until its tick limit. */
static int64_t fixed_share(const sim *s, int64_t tick, int64_t Bt)
{
    const int P = s->ctx->size;
    return cs_comm_split_fixed(Bt, (int)((s->ctx->rank + P - tick % P) % P), P);
}

/* Collective. A selecting policy's picks: proposed on every rank (its share of the budget Bt
 * under the fixed and proportional budgets), then with global_keep the best Bt over all ranks
 * (keep_global), else every proposal kept, and committed. */
static cs_err select_proposed(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt,
                              int global_keep, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_crawl_config *cc = &s->cfg->crawl;
    int64_t b = Bt, got = 0;
    if (cc->budget == CS_BUDGET_FIXED)
        b = fixed_share(s, tick, Bt);
    else if (cc->budget == CS_BUDGET_PROPORTIONAL)
        b = Bt < cc->bandwidth ? cs_comm_split(ctx, Bt, s->sl.share) : s->sl.share;
    if (local == CS_OK)
        local = propose(s, tick, step, b, &got);
    if (global_keep) {
        CS_TRY(ctx, keep_global(s, local, got, Bt, nsel));
        CS_TRY_AGREE(ctx, s->ops->commit(s->pol, ctx, *nsel));
    } else {
        if (local == CS_OK)
            local = reserve(s, *nsel, got);
        if (local == CS_OK)
            keep(s, got, got, nsel);
        if (local == CS_OK) /* (Local) */
            local = s->ops->commit(s->pol, ctx, *nsel);
        CS_TRY_AGREE(ctx, local);
    }
fail:
    return rc;
}

/* Collective. The owned crawl: a selecting policy's picks (the global budget: the best over all
 * ranks), or a value policy's greedy and exploring candidates, the best over all ranks
 * (pick_global) or, under the fixed and proportional budgets, this rank's share's best. */
cs_err sim_select_owned(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt, double eps,
                        int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const uint64_t seed = (uint64_t)s->cfg->run.seed;
    const uint64_t tick_id = ((uint64_t)1 << 62) + (uint64_t)tick;
    if (s->ops->select != NULL)
        return select_proposed(s, local, tick, step, Bt, cc->budget == CS_BUDGET_GLOBAL, nsel);
    if (cc->budget == CS_BUDGET_GLOBAL) {
        const int64_t nx = binomial(seed, tick_id, 0, Bt, eps);
        CS_TRY(ctx, pick_global(s, local, 0, tick, Bt - nx, nsel));
        CS_TRY(ctx, pick_global(s, CS_OK, 1, tick, nx, nsel));
        return CS_OK;
    }
    int64_t b, got = 0;
    if (cc->budget == CS_BUDGET_FIXED)
        b = fixed_share(s, tick, Bt);
    else
        b = Bt < cc->bandwidth ? cs_comm_split(ctx, Bt, s->sl.share) : s->sl.share;
    const int64_t nx = binomial(seed, tick_id, (uint64_t)ctx->rank + 1, b, eps);
    if (local == CS_OK)
        local = candidates(s, 0, tick, b - nx, &got);
    if (local == CS_OK)
        local = reserve(s, *nsel, got);
    if (local == CS_OK)
        keep(s, got, got, nsel);
    if (local == CS_OK)
        local = candidates(s, 1, tick, nx, &got);
    if (local == CS_OK)
        local = reserve(s, *nsel, got);
    if (local == CS_OK)
        keep(s, got, got, nsel);
    CS_TRY_AGREE(ctx, local);
fail:
    return rc;
}

/* Collective. The strict setting with a value policy: the greedy and the exploring picks, each
 * decided on global quantities in an order independent of P (pick_strict). */
cs_err sim_select_strict(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt, double eps,
                         int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    (void)step;
    CS_ASSERT(s->ops->select == NULL); /* a selecting policy's strict setting is replicated */
    const uint64_t seed = (uint64_t)s->cfg->run.seed;
    const uint64_t tick_id = ((uint64_t)1 << 62) + (uint64_t)tick;
    const int64_t nx = binomial(seed, tick_id, 0, Bt, eps);
    if (Bt - nx <= 0) /* no greedy pick to agree with (Bt and nx are the same everywhere) */
        CS_TRY_AGREE(ctx, local);
    CS_TRY(ctx, pick_strict(s, local, 0, tick, Bt - nx, nsel));
    CS_TRY(ctx, pick_strict(s, CS_OK, 1, tick, nx, nsel));
fail:
    return rc;
}

/* Collective. The replicated crawl: every rank proposes the same picks, the one policy's, and
 * keeps them all. */
cs_err sim_select_replicated(sim *s, cs_err local, int64_t tick, int64_t step, int64_t Bt,
                             double eps, int64_t *nsel)
{
    (void)eps;
    return select_proposed(s, local, tick, step, Bt, 0, nsel);
}

cs_err sim_select_tick(sim *s, int64_t tick, int64_t step, int64_t Bt, int64_t *nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const double eps = s->ops->epsilon(s->pol);
    int64_t n = cs_frontier_size(s->fr);
    *nsel = 0;
    /* this step's error travels with the next collective of every branch (the budget split
     * is made by every rank whatever its code) */
    cs_err local = cs_grow(ctx, &s->sl.taken, &s->sl.taken_cap, (size_t)n + 1, 1, "selection");
    /* a value policy on an indexed frontier clears only what it took (below), so that a tick
     * makes no pass over the entries: the marks are zero up to taken_zero */
    const int lazy = cs_frontier_index(s->fr) != NULL && s->ops->select == NULL;
    if (local == CS_OK && (!lazy || s->sl.taken_zero < (size_t)n + 1)) {
        const size_t from = lazy ? s->sl.taken_zero : 0;
        memset(s->sl.taken + from, 0, (size_t)n + 1 - from);
        s->sl.taken_zero = (size_t)n + 1;
    }
    s->sl.any_taken = 0;
    rc = s->mode->select(s, local, tick, step, Bt, eps, nsel);
    if (rc == CS_OK && lazy)
        for (int64_t i = 0; i < *nsel; i++) /* every mark is a pick's (keep) */
            s->sl.taken[s->sl.sel[i]] = 0;
    else
        s->sl.taken_zero = 0;
    s->sl.hist_fresh = 0; /* the frontier changes before the next tick's selection */
    CS_TRY(ctx, rc);
    sim_polite_check(s, tick);
fail:
    return rc;
}

void sim_select_fini(sim_select_phase *p)
{
    free(p->seeds);
    free(p->taken);
    free(p->cands);
    free(p->sel);
    free(p->sort_tmp);
    free(p->khost);
    free(p->acc);
    free(p->sp);
    free(p->sp_all);
    free(p->sp_counts);
    free(p->sp_displs);
    free(p->blk);
    free(p->hist);
}
