/*
 * sim: the picks taken. The tick's selected entries leave the frontier into the fetch phase's
 * list (sim_take_selected), in page order (sim_sort_fetches), and the task's seed pages make the
 * first tick's list (sim_take_seeds). Selection itself is sim_select.c.
 */
#include "sim/sim_engine.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Picks from which sim_take_selected reads the entries on the rank's threads. */
#define TAKE_PARALLEL 128

/* Moves the selected frontier entries into s->f.fx, then removes them from the frontier
 * (cs_frontier_remove_sorted: as if in decreasing order of slot, so that the swap-with-last
 * removal never moves an entry still to be removed). */
cs_err sim_take_selected(sim *s, int64_t nsel)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx, &s->f.fx_cap, (size_t)nsel + 1, sizeof *s->f.fx, "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_codes, &s->f.fx_codes_cap, (size_t)(nsel + 1) * (size_t)s->G,
                        1, "fetches"));
    cs_frontier_view v;
    cs_frontier_view_get(s->fr, &v);
    const sim *cs = s;
    /* one fetch per pick; the visited bits of distinct pages may share a word: atomic or */
#pragma omp parallel for if (nsel >= TAKE_PARALLEL) default(none) shared(cs, v, nsel)              \
    schedule(static)
    for (int64_t i = 0; i < nsel; i++) {
        if (i + 8 < nsel) { /* the entries are at random places */
            const int64_t e8 = cs->sl.sel[i + 8];
            __builtin_prefetch(&v.id[e8]);
            __builtin_prefetch(&v.lk[e8]);
            __builtin_prefetch(v.codes + e8 * v.stride);
        }
        int64_t e = cs->sl.sel[i];
        fetch *f = &cs->f.fx[i];
        f->page = v.id[e];
        f->li = cs_graph_local_index(cs->w.g, f->page);
        f->pick = i;
        f->par = v.lk[e].par;
        f->has_x = 1;
        memcpy(cs->f.fx_codes + i * cs->G, v.codes + e * v.stride, (size_t)cs->G);
        const int64_t bit = visited_bit_local(cs, f->li, f->page);
        __atomic_fetch_or(&cs->vis.bits[bit >> 6], (uint64_t)1 << (bit & 63), __ATOMIC_RELAXED);
    }
    /* remove by decreasing slot */
    CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)nsel + 1,
                        sizeof *s->sl.sort_tmp, "fetches"));
    cs_sort_u64((uint64_t *)s->sl.sel, nsel, s->sl.sort_tmp); /* slots are >= 0 */
    CS_TRY(ctx, cs_frontier_remove_sorted(ctx, s->fr, s->sl.sel, nsel));
fail:
    return rc;
}

/* Local. rep: keeps in s->f.fx[0..*n) the fetches of this rank's own pages (every rank selected
 * every pick; each is fetched by its owner), in their order, with their codes. */
void sim_keep_own_fetches(sim *s, int64_t *n)
{
    const size_t G = (size_t)s->G;
    int64_t m = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (s->f.fx[i].li < 0)
            continue;
        if (m != i) {
            s->f.fx[m] = s->f.fx[i];
            memcpy(s->f.fx_codes + (size_t)m * G, s->f.fx_codes + (size_t)i * G, G);
        }
        m++;
    }
    *n = m;
}

static int page_cmp(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Local. Strict setting: s->f.fx[0..n) and their codes in page id order, so that the link records
 * come out in (source page, link) order on any rank count (sim_insert_merged). */
cs_err sim_sort_fetches(sim *s, int64_t n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const size_t G = (size_t)s->G;
    if (n < 2)
        return CS_OK;
    CS_TRY(ctx, cs_grow(ctx, &s->f.perm, &s->f.perm_cap, 2 * (size_t)n + 1, sizeof *s->f.perm,
                        "fetches"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_tmp, &s->f.fx_tmp_cap, (size_t)n + 1, sizeof *s->f.fx_tmp,
                        "fetches"));
    CS_TRY(ctx,
           cs_grow(ctx, &s->f.codes_tmp, &s->f.codes_tmp_cap, (size_t)n * G + 1, 1, "fetches"));
    int64_t *idx = s->f.perm;
    if (n < ((int64_t)1 << 24) && cs_graph_n_pages(s->w.g) < ((int64_t)1 << 40)) {
        /* (page, index) packed into one key: the radix sort */
        uint64_t *k = (uint64_t *)s->f.perm;
        for (int64_t i = 0; i < n; i++)
            k[i] = (uint64_t)s->f.fx[i].page << 24 | (uint64_t)i;
        CS_TRY(ctx, cs_grow(ctx, &s->sl.sort_tmp, &s->sl.sort_tmp_cap, (size_t)n + 1,
                            sizeof *s->sl.sort_tmp, "fetches"));
        cs_sort_u64(k, n, s->sl.sort_tmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = (int64_t)(k[i] & 0xffffff);
    } else {
        for (int64_t i = 0; i < n; i++) {
            idx[2 * i] = s->f.fx[i].page;
            idx[2 * i + 1] = i;
        }
        qsort(idx, (size_t)n, 2 * sizeof *idx, page_cmp);
        for (int64_t i = 0; i < n; i++)
            idx[i] = idx[2 * i + 1];
    }
    memcpy(s->f.fx_tmp, s->f.fx, (size_t)n * sizeof *s->f.fx);
    memcpy(s->f.codes_tmp, s->f.fx_codes, (size_t)n * G);
    fetch *fx = s->f.fx;
    const fetch *ft = s->f.fx_tmp;
    uint8_t *codes = s->f.fx_codes;
    const uint8_t *ct = s->f.codes_tmp;
#pragma omp parallel for if (n >= TAKE_PARALLEL) default(none)                                     \
    shared(fx, ft, codes, ct, idx, n, G) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        fx[i] = ft[idx[i]];
        memcpy(codes + (size_t)i * G, ct + (size_t)idx[i] * G, G);
    }
fail:
    return rc;
}

/* Collective. Sets s->f.fx to this rank's seed pages (task start). */
cs_err sim_take_seeds(sim *s, int64_t *n)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    *n = 0;
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx, &s->f.fx_cap, (size_t)s->sl.n_seeds + 1, sizeof *s->f.fx,
                        "seeds"));
    CS_TRY(ctx, cs_grow(ctx, &s->f.fx_codes, &s->f.fx_codes_cap,
                        (size_t)(s->sl.n_seeds + 1) * (size_t)s->G, 1, "seeds"));
    for (int64_t i = 0; i < s->sl.n_seeds; i++) {
        sim_visited_set(s,
                        s->sl.seeds[i]); /* every rank knows every seed, and marks its own bits */
        int64_t li = cs_graph_local_index(s->w.g, s->sl.seeds[i]);
        if (li < 0)
            continue;
        fetch *f = &s->f.fx[(*n)++];
        memset(f, 0, sizeof *f);
        f->pick = -1;
        f->page = s->sl.seeds[i];
        f->li = li;
    }
fail:
    return cs_agree(ctx, rc);
}
