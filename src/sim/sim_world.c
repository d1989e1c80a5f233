/*
 * sim: the world crawled (generated or loaded, partitioned), its host tables, the seed pages
 * of the tasks and the strict setting.
 */
#include "sim/sim_engine.h"

#include <errno.h>
#include <omp.h>

/* ---- world --------------------------------------------------------------------------------- */

/* Local. A generated world's graph file: its spec (*spec, the caller frees it) rebuilds the
 * model (term vectors for the evidence) into w->gen, and gives the relevance threshold. */
static cs_err world_spec(cs_ctx *ctx, hid_t file, const cs_graph_header *hdr, const char *path,
                         cs_sim_world *w, cs_config **spec)
{
    cs_err rc = CS_OK;
    char *text = NULL;
    const size_t cap = 1 << 16;
    rc = cs_alloc(ctx, &text, cap, 1, "graph spec");
    if (rc == CS_OK)
        rc = cs_h5_attr_read_string(ctx, file, "spec", text, cap, path);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, spec, 1, sizeof **spec, "graph spec");
    if (rc == CS_OK) {
        cs_config_defaults(*spec);
        rc = cs_config_parse_string(ctx, text, path, *spec);
    }
    if (rc == CS_OK && ((*spec)->gen.pages != hdr->n_pages))
        rc = cs_fail(ctx, CS_ERR_FORMAT,
                     "graph file %s: its spec describes %lld pages but it has %lld", path,
                     (long long)(*spec)->gen.pages, (long long)hdr->n_pages);
    if (rc == CS_OK)
        rc = cs_gen_create(ctx, &(*spec)->gen, &w->gen);
    if (rc == CS_OK)
        w->threshold = (*spec)->gen.relevance_threshold;
    free(text);
    return rc;
}

/* Collective. A world generated in memory (run.graph empty): the model, its partition (block,
 * host-hash or metis-sampled) and this rank's graph or, in the procedural world, its index. */
static cs_err world_generated(cs_ctx *ctx, const cs_config *cfg, cs_sim_world *w,
                              cs_partition *part)
{
    cs_err rc = CS_OK;
    if (cfg->run.partition_method == CS_RUN_PART_FILE)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "run.partition_method = file needs a graph file (run.graph); a world "
                     "generated in memory takes host-hash or block");
    CS_TRY_AGREE(ctx, rc);
    double t0 = cs_now();
    CS_TRY_AGREE(ctx, cs_gen_create_shared(ctx, &cfg->gen, &w->gen));
    CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: the generator's model %.2f s", cs_now() - t0);
    /* metis-sampled takes host-hash's path: hosts whole, the owner from the host (its
     * entry of the table instead of its hash, cs_gen_host_owner) */
    int method = cfg->run.partition_method == CS_RUN_PART_BLOCK ? CS_PART_BLOCK : CS_PART_HOST_HASH;
    t0 = cs_now();
    if (cfg->run.partition_method == CS_RUN_PART_METIS_SAMPLED) {
        /* METIS on the host graph estimated from partition.sample pages per host (rank
         * 0, broadcast): owners from the host's entry, as host-hash from its hash */
        cs_gen_host_graph_info info;
        CS_TRY_AGREE(ctx,
                     cs_gen_partition_sampled(ctx, w->gen, &cfg->partition, &w->host_part, &info));
        CS_LOG(ctx, CS_LOG_VERBOSE,
               "set-up: metis-sampled partition %.2f s (host graph of %lld sampled pages, "
               "%lld links, %lld adjacency entries: %.2f s; METIS %.2f s)",
               cs_now() - t0, (long long)info.sampled_pages, (long long)info.sampled_links,
               (long long)info.adjacency, info.seconds, info.metis_seconds);
        t0 = cs_now();
    }
    w->proc = !cfg->gen.materialize;
    w->owner = (cs_gen_owner){w->gen, cfg->partition.seed, ctx->size, w->host_part};
    w->gen_owner = method == CS_PART_HOST_HASH;
    if (!w->proc && w->gen_owner) {
        /* host-hash: this rank's pages from the hosts' hashes and the owner of a page
         * from its host, as the procedural world below: no part per host, every rank's
         * runs or owner runs (H entries on every rank) */
        CS_TRY_AGREE(ctx, cs_gen_graph_host_hash(ctx, &w->owner, &w->g));
    } else if (w->proc && w->gen_owner) {
        /* the procedural world under host-hash: this rank's runs of pages straight from
         * the hosts' hashes and the owner of a page from its host, no partition object
         * (a part per host, every rank's runs) */
        int64_t *st = NULL, *ct = NULL, R = 0;
        rc = cs_gen_host_hash_runs(ctx, &w->owner, ctx->rank, &st, &ct, &R);
        if (rc == CS_OK)
            rc = cs_graph_build_index_runs(ctx, cs_gen_n_pages(w->gen), cs_gen_n_hosts(w->gen),
                                           cs_gen_n_topics(w->gen), st, ct, R,
                                           cs_gen_host_hash_owner, &w->owner, &w->g);
        free(st);
        free(ct);
        CS_TRY_AGREE(ctx, rc);
    } else {
        CS_TRY_AGREE(ctx,
                     cs_gen_partition(ctx, w->gen, method, ctx->size, cfg->partition.seed, part));
        CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: partition %.2f s", cs_now() - t0);
        t0 = cs_now();
        if (cfg->gen.materialize)
            CS_TRY(ctx, cs_gen_graph(ctx, w->gen, part, &w->g));
        else /* the procedural world on blocks: the owner lookup and local ids only */
            CS_TRY_AGREE(ctx, cs_graph_build_index(ctx, part, cs_gen_n_hosts(w->gen),
                                                   cs_gen_n_topics(w->gen), &w->g));
    }
    CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: the graph's index %.2f s", cs_now() - t0);
fail:
    return rc;
}

/* Collective. A world read from run.graph (and its partition file, or partitioned now); a
 * generated one's spec into *spec (world_spec). */
static cs_err world_loaded(cs_ctx *ctx, const cs_config *cfg, cs_sim_world *w, cs_partition *part,
                           cs_config **spec)
{
    cs_err rc = CS_OK;
    if (!cfg->gen.materialize)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "gen.materialize = false computes a generated world's pages when the "
                     "crawl needs them: it needs run.graph empty (a world generated in "
                     "memory), not the graph file %s",
                     cfg->run.graph);
    else if (cfg->run.partition_method == CS_RUN_PART_METIS_SAMPLED)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "run.partition_method = metis-sampled samples a generated world (run.graph "
                     "empty); for the graph file %s run crawlsim partition --method "
                     "metis-host and set run.partition_method = file",
                     cfg->run.graph);
    CS_TRY_AGREE(ctx, rc);
    char path[CS_CONF_STR + 64], ppath[CS_CONF_STR + 64];
    cs_config_resolve_path(cfg, cfg->run.graph, path, sizeof path);
    hid_t file = -1;
    cs_graph_header hdr;
    CS_TRY(ctx, cs_graphio_open(ctx, path, &file, &hdr));
    if (strcmp(hdr.source, "gen") == 0) /* its spec rebuilds the model */
        rc = world_spec(ctx, file, &hdr, path, w, spec);
    H5Fclose(file);
    CS_TRY_AGREE(ctx, rc);
    if (cfg->run.partition_method == CS_RUN_PART_FILE) {
        if (cfg->run.partition[0] != '\0')
            cs_config_resolve_path(cfg, cfg->run.partition, ppath, sizeof ppath);
        CS_TRY(ctx, cs_graph_load(ctx, path, cfg->run.partition[0] ? ppath : NULL, &w->g));
    } else {
        cs_partition_config pc = cfg->partition;
        pc.method =
            cfg->run.partition_method == CS_RUN_PART_BLOCK ? CS_PART_BLOCK : CS_PART_HOST_HASH;
        double t0 = cs_now();
        CS_TRY(ctx, cs_partition_assign(ctx, path, &pc, ctx->size, part));
        CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: partition %.2f s", cs_now() - t0);
        t0 = cs_now();
        CS_TRY(ctx, cs_graph_load_with(ctx, path, part, &w->g));
        CS_LOG(ctx, CS_LOG_VERBOSE, "set-up: load %.2f s", cs_now() - t0);
    }
fail:
    return rc;
}

/* Builds w->g (and w->gen when the world is synthetic) from cfg. */
static cs_err build_world(cs_ctx *ctx, const cs_config *cfg, cs_sim_world *w)
{
    cs_err rc = CS_OK;
    cs_partition part;
    cs_partition_init(&part);
    cs_config *spec = NULL;
    w->threshold = cfg->gen.relevance_threshold;
    if (cfg->run.graph[0] == '\0')
        CS_TRY(ctx, world_generated(ctx, cfg, w, &part));
    else
        CS_TRY(ctx, world_loaded(ctx, cfg, w, &part, &spec));
    if (cfg->run.relevance == CS_RELEVANCE_NONE)
        w->threshold = -1.0; /* a coverage crawl: every page (relevance >= 0) counts */
fail:
    w->gen_cfg = spec != NULL ? spec->gen : cfg->gen; /* the evidence uses the world's own */
    free(spec);
    cs_partition_fini(&part);
    return rc;
}

/* What a world depends on: the [gen] and [partition] sections and the run's world keys. */
static cs_err world_key(cs_ctx *ctx, const cs_config *cfg, char **key)
{
    char *gen = NULL, *part = NULL;
    cs_err rc = cs_config_to_ini(ctx, cfg, "gen", &gen);
    if (rc == CS_OK)
        rc = cs_config_to_ini(ctx, cfg, "partition", &part);
    const size_t n = (gen ? strlen(gen) : 0) + (part ? strlen(part) : 0) + 4 * CS_CONF_STR + 64;
    if (rc == CS_OK)
        rc = cs_alloc(ctx, key, n, 1, "world key");
    if (rc == CS_OK)
        snprintf(*key, n, "%s\n%s\n%s\n%s\n%s\n%d %d\n", gen, part, cfg->run.graph,
                 cfg->run.partition, cfg->dir, cfg->run.partition_method, cfg->run.relevance);
    free(gen);
    free(part);
    return rc;
}

cs_err cs_sim_world_load(cs_ctx *ctx, const cs_config *cfg, cs_sim_world **out)
{
    *out = NULL;
    cs_sim_world *w = NULL;
    cs_err rc = cs_calloc(ctx, &w, 1, sizeof *w, "world");
    if (rc == CS_OK)
        rc = world_key(ctx, cfg, &w->key);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx, build_world(ctx, cfg, w));
    *out = w;
    return CS_OK;
fail:
    cs_sim_world_destroy(&w);
    return rc;
}

void cs_sim_world_destroy(cs_sim_world **w)
{
    if (*w == NULL)
        return;
    cs_graph_destroy(&(*w)->g);
    cs_gen_destroy(&(*w)->gen);
    free((*w)->host_part);
    free((*w)->key);
    cs_evidence_destroy(&(*w)->ev);
    free((*w)->ev_ghost);
    free(*w);
    *w = NULL;
}

cs_err sim_world_check(cs_ctx *ctx, const cs_sim_world *w, const cs_config *cfg)
{
    char *key = NULL;
    cs_err rc = world_key(ctx, cfg, &key);
    if (rc == CS_OK && strcmp(key, w->key) != 0)
        rc = cs_fail(ctx, CS_ERR_ARG,
                     "a loaded world is shared only by runs of the same world: the [gen], "
                     "[partition] and the run's graph, partition and relevance must not differ");
    free(key);
    return rc;
}

/*
 * The procedural world's split hosts, without a pass over the hosts nor a collective: its
 * partitions give the pages of a range to ranks in increasing order. Host-hash keeps every host
 * whole; a block partition splits only the hosts that hold a block's first page and begin
 * before it (at most k - 1), each on o1 - o0 + 1 ranks (every rank between the owners of its
 * first and last pages has some), this rank's index among them its rank less o0, clamped (the
 * count of ranks before this one with pages of it, as the exclusive scan of sim_build_hosts
 * gives). Returns whether some host is split; with host_k and host_idx (zeroed, H entries)
 * fills those hosts' entries (a whole host's 0 reads as one rank, as its index is not read).
 */
static int proc_split_hosts(sim *s)
{
    const int k = s->ctx->size, me = s->ctx->rank;
    const int64_t N = cs_graph_n_pages(s->w.g);
    int split = 0;
    for (int r = 1; r < k && s->cfg->run.partition_method == CS_RUN_PART_BLOCK; r++) {
        int64_t p = 0, n = 0, f = 0, c = 0;
        cs_block_range(N, r, k, &p, &n);
        const int64_t h = cs_gen_host_of(s->w.gen, p);
        cs_gen_host_range(s->w.gen, h, &f, &c);
        if (n == 0 || f == p)
            continue;
        split = 1;
        if (s->h.host_k == NULL)
            continue;
        const int o0 = cs_graph_owner(s->w.g, f), o1 = cs_graph_owner(s->w.g, f + c - 1);
        s->h.host_k[h] = o1 - o0 + 1;
        s->h.host_idx[h] = (me < o0 ? o0 : me > o1 + 1 ? o1 + 1 : me) - o0;
    }
    return split;
}

/*
 * Local. The host slots of the procedural world under host-hash with one policy per rank
 * (sim_hosts): only this rank's hosts are counted there (its fetches, its frontier's pages, its
 * re-crawls are its own pages), so the host tables hold this rank's hosts only, H / P entries
 * instead of H; a host's slot is its rank among them, from a rank directory over the hosts
 * (0.19 bytes a host): 0.19 + 17 / P bytes a host instead of 17. The hosts are the
 * partition's (cs_gen_host_owner: the host's hash, as cs_gen_partition assigns them, or its
 * metis-sampled part).
 */
static cs_err host_slots(sim *s, int64_t H)
{
    cs_ctx *ctx = s->ctx;
    const int64_t W = (H + 63) / 64;
    const int32_t me = ctx->rank;
    const cs_gen_owner *o = s->w.owner;
    cs_err rc = cs_calloc(ctx, &s->h.slot_bits, (size_t)W + 1, 8, "host slots");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &s->h.slot_below, (size_t)W + 1, 4, "host slots");
    if (rc != CS_OK)
        return rc;
    uint64_t *bits = s->h.slot_bits;
#pragma omp parallel for default(none) shared(o, bits, W, H, me) schedule(static)
    for (int64_t w = 0; w < W; w++) {
        uint64_t b = 0;
        for (int64_t h = w * 64; h < H && h < w * 64 + 64; h++)
            b |= (uint64_t)(cs_gen_host_owner(o, h) == me) << (h & 63);
        bits[w] = b;
    }
    int64_t n = 0;
    for (int64_t w = 0; w <= W; w++) {
        s->h.slot_below[w] = (int32_t)n;
        n += w < W ? cs_popcount64(bits[w]) : 0;
    }
    s->h.n_slots = n;
    /* the partition is the one the graph's owner lookup holds */
    for (int64_t h = 0; h<H; h += H> 1 ? H - 1 : 1) {
        int64_t f = 0, c = 0;
        cs_gen_host_range(s->w.gen, h, &f, &c);
        CS_ASSERT((cs_graph_owner(s->w.g, f) == me) == ((bits[h >> 6] >> (h & 63)) & 1));
    }
    return CS_OK;
}

/* Politeness bookkeeping: how many ranks own pages of each host and this rank's index, kept
 * only when some host is split (s->h.any_split; the same on every rank): under a partition
 * that keeps hosts whole every host has one owner. Per host, 17 bytes on every rank (quotas,
 * the tick's list, the task's counts), 8 more with split hosts; in the procedural world under
 * host-hash 17 per host of this rank (host_slots). */
/* Collective. How the relevant hosts are counted (global_totals): a rank's are its own when it
 * is alone, or when no host is split and each rank fetches only its own pages (not replicated),
 * and their count is then the sum of the ranks' counts; otherwise the ranks' bitmaps are OR-ed
 * into rel_host_all. */
static cs_err rel_hosts_mode(sim *s)
{
    cs_ctx *ctx = s->ctx;
    s->h.rel_disjoint = ctx->size == 1 || (!s->rep && !s->h.any_split);
    if (s->h.rel_disjoint)
        return CS_OK;
    return cs_agree(
        ctx, cs_calloc(ctx, &s->h.rel_host_all, (size_t)s->h.host_words + 1, 8, "relevant hosts"));
}

cs_err sim_build_hosts(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t H = cs_graph_n_hosts(s->w.g), nl = cs_graph_n_local(s->w.g);
    const int64_t *host = cs_graph_host(s->w.g);
    int32_t *mine = NULL;
    s->h.host_words = (H + 63) / 64;
    /* materialized: found below, unless the owner is the host's hash (hosts are whole) */
    const int split = s->w.proc ? proc_split_hosts(s) : !s->w.gen_owner;
    s->h.n_slots = H;
    if ((s->w.proc || s->w.gen_owner) && !split && !s->rep && ctx->size > 1 &&
        s->cfg->run.partition_method != CS_RUN_PART_BLOCK)
        rc = host_slots(s, H);
    const size_t ns = (size_t)s->h.n_slots + 1;
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.rel_host, (size_t)s->h.host_words + 1, 8, "relevant hosts");
    if (rc == CS_OK && split)
        rc = cs_calloc(ctx, &s->h.host_k, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK && split)
        rc = cs_calloc(ctx, &s->h.host_idx, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.host_used, ns, 4, "host quotas");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &s->h.touched, ns, 4, "host quotas");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.host_mark, ns, 1, "host quotas");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.host_fetched, ns, 4, "host caps");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &s->h.host_rel, ns, 4, "host caps");
    if (rc == CS_OK && !s->w.proc && split)
        rc = cs_calloc(ctx, &mine, (size_t)H + 1, 4, "host owners");
    if (rc == CS_OK && H > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "more than 2^31 - 1 hosts");
    CS_TRY_AGREE(ctx, rc);
    if (s->w.proc || !split) {
        s->h.any_split = s->w.proc && proc_split_hosts(s);
        return rel_hosts_mode(s);
    }
    for (int64_t i = 0; i < nl; i++)
        mine[host[i]] = 1;
    cs_allreduce(ctx, mine, s->h.host_k, (int)H, CS_T_I32, CS_OP_SUM);
    cs_exscan_sum(ctx, mine, s->h.host_idx, (int)H, CS_T_I32);
    for (int64_t h = 0; h < H; h++)
        s->h.any_split |= s->h.host_k[h] > 1; /* host_k is global: the same on every rank */
    if (!s->h.any_split) {
        free(s->h.host_k);
        free(s->h.host_idx);
        s->h.host_k = s->h.host_idx = NULL;
    }
    rc = rel_hosts_mode(s);
fail:
    free(mine);
    return rc;
}

/* ---- seeds --------------------------------------------------------------------------------- */

/* The order of the seed-page candidates: seed_key(p) = cs_mix64(p ^ seed_salt). */
static uint64_t seed_salt(const sim *s)
{
    return cs_mix64((uint64_t)s->cfg->run.seed + CS_HASH_SEED_PAGES);
}

static uint64_t seed_key(const sim *s, int64_t p)
{
    return cs_mix64((uint64_t)p ^ seed_salt(s));
}

/* Local. (k, page) into the sorted list mine[0 .. 2 m) of at most S pairs, the largest dropped
 * when it is full (the caller checked that k is below it then). */
static void seed_insert(uint64_t *mine, int64_t *m, int64_t S, uint64_t k, int64_t page)
{
    int64_t j = *m < S ? (*m)++ : *m - 1;
    while (j > 0 && mine[2 * (j - 1)] > k) {
        mine[2 * j] = mine[2 * (j - 1)];
        mine[2 * j + 1] = mine[2 * (j - 1) + 1];
        j--;
    }
    mine[2 * j] = k;
    mine[2 * j + 1] = (uint64_t)page;
}

/*
 * Local. The procedural world's candidates of sim_choose_seeds: this rank's S smallest (key,
 * page) pairs into mine (sorted, *m of them) over its runs of pages, no page stored: each
 * OpenMP thread a range of the rank's pages and its own list, then the lists merged (keys are
 * distinct: seed_key is a bijection of the page, so the S smallest pairs are the same whatever
 * the order they are offered in). A page's relevance is computed only when its key would enter
 * a list (the same list: a page is kept when relevant and its key small enough, in either
 * order of the two tests). O(N / P): a key per page.
 */
static cs_err proc_seeds(sim *s, uint64_t *mine, int64_t *m)
{
    cs_ctx *ctx = s->ctx;
    const int64_t S = s->cfg->run.seeds, R = cs_graph_n_local_runs(s->w.g);
    const int64_t n = cs_graph_n_local(s->w.g);
    const int relevant = s->cfg->run.seed_pages == CS_SEEDS_RELEVANT;
    const int T = omp_get_max_threads();
    uint64_t *lists = NULL;
    int64_t *counts = NULL;
    CS_ASSERT(R >= 0); /* the procedural world's index is by ranges (cs_graph_build_index) */
    cs_err rc = cs_alloc(ctx, &lists, (size_t)T * (size_t)S * 2, 8, "seeds");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &counts, (size_t)T, sizeof *counts, "seeds");
    if (rc != CS_OK) {
        free(lists);
        return rc;
    }
    const sim *cs = s;
    const uint64_t salt = seed_salt(s);
#pragma omp parallel default(none) shared(cs, lists, counts, S, R, n, relevant, T, salt)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t *li = lists + (size_t)t * (size_t)S * 2, thr = 0;
        int64_t mt = 0;
        int full = 0; /* the list holds S pairs: a key enters below thr, the largest */
        /* this thread's local indices [lo, hi): from the run holding lo */
        const int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        const int64_t hi = lo + n / nt + (t < n % nt);
        int64_t a = 0, b = R;
        while (b - a > 1) {
            const int64_t mid = a + (b - a) / 2;
            int64_t mf = 0, mc = 0, mb = 0;
            cs_graph_local_run(cs->w.g, mid, &mf, &mc, &mb);
            if (mb <= lo)
                a = mid;
            else
                b = mid;
        }
        for (int64_t i = a, li_at = lo; i < R && li_at < hi; i++) {
            int64_t f = 0, c = 0, base = 0;
            cs_graph_local_run(cs->w.g, i, &f, &c, &base);
            const int64_t from = f + (li_at - base), to = f + (hi - base < c ? hi - base : c);
            for (int64_t p = from; p < to; p++) {
                const uint64_t k = cs_mix64((uint64_t)p ^ salt); /* seed_key */
                if (full && k >= thr)
                    continue;
                if (relevant) {
                    cs_gen_page pa;
                    cs_gen_page_attrs(cs->w.gen, p, &pa);
                    if (pa.relevance < cs->w.threshold)
                        continue;
                }
                seed_insert(li, &mt, S, k, p);
                full = mt == S;
                thr = li[2 * (mt - 1)];
            }
            li_at = base + c;
        }
        counts[t] = mt;
    }
    int64_t mm = 0;
    for (int t = 0; t < T; t++)
        for (int64_t j = 0; j < counts[t]; j++) {
            const uint64_t *e = lists + ((size_t)t * (size_t)S + (size_t)j) * 2;
            if (mm == S && e[0] >= mine[2 * (mm - 1)])
                break; /* the thread's list is sorted: the rest are larger */
            seed_insert(mine, &mm, S, e[0], (int64_t)e[1]);
        }
    *m = mm;
    free(counts);
    free(lists);
    return CS_OK;
}

/* Collective. The in-degree of every page (4 bytes a page on every rank), from each rank's
 * out-links, into *out (caller frees). */
static cs_err global_in_degrees(sim *s, int32_t **out)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t N = cs_graph_n_pages(s->w.g), nl = cs_graph_n_local(s->w.g);
    const int64_t *off = cs_graph_offsets(s->w.g), *tg = cs_graph_targets(s->w.g);
    int32_t *mine = NULL, *all = NULL;
    *out = NULL;
    rc = cs_calloc(ctx, &mine, (size_t)N + 1, sizeof *mine, "in-degrees");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &all, (size_t)N + 1, sizeof *all, "in-degrees");
    if (rc == CS_OK && N > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT, "run.seed_pages = in-degree: at most 2^31 - 1 pages");
    CS_TRY_AGREE(ctx, rc);
    for (int64_t k = 0; k < off[nl]; k++)
        mine[tg[k]]++;
    cs_allreduce(ctx, mine, all, (int)N, CS_T_I32, CS_OP_SUM);
    free(mine);
    *out = all;
    return CS_OK;
fail:
    free(mine);
    free(all);
    return rc;
}

/* Local. The next line of f into line[cap]: a line ends at LF, CRLF or a lone CR. 0 at the
 * end of the file, 2 when the line was longer than cap - 1 bytes (cut), else 1. */
static int read_line(FILE *f, char *line, size_t cap)
{
    size_t n = 0;
    int c = getc(f), cut = 0;
    if (c == EOF)
        return 0;
    for (; c != EOF && c != '\n' && c != '\r'; c = getc(f)) {
        if (n + 1 < cap)
            line[n++] = (char)c;
        else
            cut = 1;
    }
    if (c == '\r' && (c = getc(f)) != '\n' && c != EOF)
        ungetc(c, f);
    line[n] = '\0';
    return cut ? 2 : 1;
}

/* Local (the same on every rank). The page ids of run.seed_file into s->sl.seeds. */
static cs_err seeds_from_file(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t N = cs_graph_n_pages(s->w.g);
    char path[CS_CONF_STR + 64], line[256];
    size_t cap = 0;
    if (s->cfg->run.seed_file[0] == '\0')
        return cs_fail(ctx, CS_ERR_CONFIG, "run.seed_pages = file needs run.seed_file");
    cs_config_resolve_path(s->cfg, s->cfg->run.seed_file, path, sizeof path);
    errno = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return cs_fail(ctx, CS_ERR_IO, "run.seed_file %s: cannot open: %s", path, strerror(errno));
    s->sl.n_seeds = 0;
    int got;
    for (long long ln = 1; (got = read_line(f, line, sizeof line)) != 0; ln++) {
        char *p = line, *e;
        if (got == 2) {
            rc = cs_fail(ctx, CS_ERR_FORMAT, "%s:%lld: line longer than %zu characters", path, ln,
                         sizeof line - 1);
            break;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        errno = 0;
        long long id = strtoll(p, &e, 10);
        while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n')
            e++;
        if (e == p || *e != '\0' || errno != 0 || id < 0 || id >= N) {
            int ql = (int)strcspn(p, "\r\n");
            rc = cs_fail(ctx, CS_ERR_FORMAT,
                         "%s:%lld: '%.*s' is not a page id of the graph (0 to %lld)", path, ln,
                         ql < 40 ? ql : 40, p, (long long)N - 1);
            break;
        }
        if ((size_t)s->sl.n_seeds == cap)
            rc = cs_grow(ctx, &s->sl.seeds, &cap, (size_t)s->sl.n_seeds + 1, sizeof *s->sl.seeds,
                         "seeds");
        if (rc != CS_OK)
            break;
        int dup = 0;
        for (int64_t k = 0; k < s->sl.n_seeds && !dup; k++)
            dup = s->sl.seeds[k] == id;
        if (!dup)
            s->sl.seeds[s->sl.n_seeds++] = id;
    }
    fclose(f);
    if (rc == CS_OK && s->sl.n_seeds == 0)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "run.seed_file %s holds no page id", path);
    return rc;
}

/*
 * Collective. The seed pages: the run.seeds pages of smallest key over all ranks, the same for
 * any rank count. seed_pages = relevant: relevant pages keyed by a hash of (run.seed, page);
 * random: any page by that hash; in-degree: any page by (largest in-degree, smallest id); file:
 * the ids of run.seed_file.
 */
cs_err sim_choose_seeds(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int mode = s->cfg->run.seed_pages;
    const int64_t S = s->cfg->run.seeds, nl = cs_graph_n_local(s->w.g);
    const int64_t *ids = cs_graph_local_ids(s->w.g);
    const double *rel = cs_graph_relevance(s->w.g);
    uint64_t *mine = NULL;
    int32_t *indeg = NULL;
    if (mode == CS_SEEDS_FILE) {
        CS_TRY_AGREE(ctx, seeds_from_file(s));
        return CS_OK;
    }
    if (mode == CS_SEEDS_IN_DEGREE && s->w.proc)
        return cs_fail(ctx, CS_ERR_CONFIG,
                       "run.seed_pages = in-degree needs every page's in-links before the crawl, "
                       "which gen.materialize = false does not compute (a page's links are made "
                       "when it is fetched): choose run.seed_pages = relevant, random or file, or "
                       "set gen.materialize = true");
    if (mode == CS_SEEDS_IN_DEGREE)
        CS_TRY(ctx, global_in_degrees(s, &indeg));
    if (S > INT32_MAX / 16)
        rc = cs_fail(ctx, CS_ERR_CONFIG, "run.seeds = %lld is too large", (long long)S);
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &mine, (size_t)S * 2, 8, "seeds");
    if (rc == CS_OK)
        rc = cs_alloc(ctx, &s->sl.seeds, (size_t)S, 8, "seeds");
    CS_TRY_AGREE(ctx, rc);
    /* the S smallest (key, id) pairs of this rank, by insertion into a sorted list, the pages
     * offered in increasing id */
    int64_t m = 0;
    if (s->w.proc)
        CS_TRY_AGREE(ctx, proc_seeds(s, mine, &m));
    for (int64_t i = 0; i < nl && !s->w.proc; i++) {
        if (mode == CS_SEEDS_RELEVANT && rel[i] < s->w.threshold)
            continue;
        uint64_t k = mode == CS_SEEDS_IN_DEGREE
                         ? (uint64_t)(INT32_MAX - indeg[ids[i]]) << 32 | (uint64_t)ids[i]
                         : seed_key(s, ids[i]);
        if (m == S && k >= mine[2 * (m - 1)])
            continue;
        seed_insert(mine, &m, S, k, ids[i]);
    }
    for (int64_t j = m; j < S; j++)
        mine[2 * j] = mine[2 * j + 1] = UINT64_MAX;
    /* the S smallest over all ranks (the lists are sorted by (key, id): ids ascend within a
     * rank and keys are compared first) */
    s->sl.n_seeds = cs_comm_smallest(ctx, mine, S);
    for (int64_t j = 0; j < s->sl.n_seeds; j++)
        s->sl.seeds[j] = (int64_t)mine[2 * j + 1];
    if (s->sl.n_seeds == 0)
        rc = cs_fail(ctx, CS_ERR_CONFIG,
                     "the world has no relevant page (relevance >= %g) to start the crawl from; "
                     "a graph without labels (such as LAW's crawls) starts from run.seed_pages = "
                     "random, in-degree or file, and run.relevance = none makes every page count",
                     s->w.threshold);
    else if (s->sl.n_seeds < S) /* every rank merged the same lists: the same count everywhere */
        CS_LOG(ctx, CS_LOG_WARN,
               "run.seeds = %lld, but the world has only %lld %spages: the crawl starts from "
               "those %lld",
               (long long)S, (long long)s->sl.n_seeds, mode == CS_SEEDS_RELEVANT ? "relevant " : "",
               (long long)s->sl.n_seeds);
fail:
    free(mine);
    free(indeg);
    return rc;
}

/* ---- set-up, results, tear-down ------------------------------------------------------------ */

/* Collective. rep: s->h.host_all, the host of every page (4 bytes a page on every rank), from each
 * rank's own pages. */
cs_err sim_host_map(sim *s)
{
    cs_ctx *ctx = s->ctx;
    cs_err rc = CS_OK;
    const int64_t N = cs_graph_n_pages(s->w.g), nl = cs_graph_n_local(s->w.g);
    const int64_t *ids = cs_graph_local_ids(s->w.g), *host = cs_graph_host(s->w.g);
    int32_t *mine = NULL;
    rc = cs_calloc(ctx, &s->h.host_all, (size_t)N + 1, sizeof *s->h.host_all, "host map");
    if (rc == CS_OK)
        rc = cs_calloc(ctx, &mine, (size_t)N + 1, sizeof *mine, "host map");
    if (rc == CS_OK && N > INT32_MAX)
        rc = cs_fail(ctx, CS_ERR_LIMIT,
                     "the strict setting of run.policy = %s keeps every "
                     "page's host on every rank: at most 2^31 - 1 pages",
                     s->pname);
    CS_TRY_AGREE(ctx, rc);
    /* each page's host + 1 on its owner, 0 elsewhere: a sum over ranks */
    for (int64_t i = 0; i < nl; i++)
        mine[ids[i]] = (int32_t)(host[i] + 1);
    cs_allreduce(ctx, mine, s->h.host_all, (int)N, CS_T_I32, CS_OP_SUM);
    for (int64_t p = 0; p < N; p++)
        s->h.host_all[p]--;
fail:
    free(mine);
    return rc;
}

/*
 * Collective. crawl.weight_sync and the strict setting (docs/guide/synchronisation.md): sets
 * s->sum and s->strict, or fails with a clear error when the job asks for what the policy
 * cannot honour. The strict setting is budget = global, exchange_every = 1, and for a learner
 * weight_sync = sum with sync_every = 1. It is exact for the value-based policies (random,
 * best-first, sarsa); the selecting policies (tres, tres-async, tree-random: a Tree-Frontier
 * or heap per rank, Adam per rank) are not rank-invariant yet, so under sum on more than one
 * rank they are refused rather than run with results that depend on P.
 */
/* The largest alpha x B at which a SARSA tick under weight_sync = sum learned as the online loop
 * does (measured: docs/guide/synchronisation.md; sarsa.alpha = auto stays at a tenth of it). */
#define SUM_STEP_MAX 0.1

cs_err sim_strict_setting(sim *s)
{
    cs_ctx *ctx = s->ctx;
    const cs_crawl_config *cc = &s->cfg->crawl;
    const int learner = s->ops->weights != NULL, wsum = cc->weight_sync == CS_WSYNC_SUM;
    const int global1 = cc->budget == CS_BUDGET_GLOBAL && cc->exchange_every == 1;
    s->sum = wsum && learner && s->ops->sum_begin != NULL;
    /* Under sum a SARSA tick applies its B updates together, all computed from the weights at
     * the tick's start: the tick's step is about alpha x B. Measured on the quickstart world
     * (docs/guide/synchronisation.md), alpha x B = 0.1 learns as the online loop does, 0.3
     * loses a third of the harvest and 1 collapses below random. */
    const double step =
        s->ops->step != NULL ? s->ops->step(s->cfg, ctx->size) * (double)cc->bandwidth : 0.0;
    if (s->sum && step > SUM_STEP_MAX)
        CS_LOG(ctx, CS_LOG_WARN,
               "%s x crawl.bandwidth = %g under crawl.weight_sync = sum: a tick's %lld "
               "updates come from the same weights and are applied together, so its step is "
               "about %g; above %g the learner degrades and near 1 it collapses. Set "
               "%s <= %g for this bandwidth, or auto (docs/guide/synchronisation.md)",
               s->ops->step_key, step, (long long)cc->bandwidth, step, SUM_STEP_MAX,
               s->ops->step_key, SUM_STEP_MAX / (double)cc->bandwidth);
    if (s->ops->select == NULL) {
        s->strict = global1 && (!learner || (s->sum && cc->sync_every == 1));
    } else {
        /* the selecting policies: one logical policy on replicated state (rep_share) */
        s->strict = s->rep = global1 && wsum && cc->sync_every == 1;
        if (wsum && ctx->size > 1 && !s->rep)
            return cs_fail(ctx, CS_ERR_CONFIG,
                           "run.policy = %s with crawl.weight_sync = sum (the default: one "
                           "learner) on %d ranks needs crawl.budget = global, exchange_every = "
                           "1 and sync_every = 1 (the strict setting: every rank runs the one "
                           "policy on replicated state); with other settings set "
                           "crawl.weight_sync = average (the ranks' networks averaged every "
                           "sync_every ticks)",
                           s->pname, ctx->size);
    }
    return CS_OK;
}

void sim_hosts_fini(sim_hosts *h)
{
    free(h->rel_host);
    free(h->rel_host_all);
    free(h->host_k);
    free(h->host_idx);
    free(h->host_used);
    free(h->host_mark);
    free(h->touched);
    free(h->host_all);
    free(h->sp_before);
    free(h->host_fetched);
    free(h->host_rel);
    free(h->slot_bits);
    free(h->slot_below);
}
