/*
 * discover/fish: the worked example of docs/developer/adding-a-policy.md, a Fish-Search-like
 * value policy (De Bra and Post, 1994: the children of relevant pages are crawled first). A
 * frontier entry's value is the mean of its best anchor's relevance estimate and its parents'
 * mean relevance, so a link found on relevant pages rises even when its anchor says little. It
 * does not learn, so it has no weights and nothing to save.
 *
 * Built by cli.test_example_policy, which compiles this file with one more line in a copy of
 * src/config/registry_discover.def and crawls with it; as a real policy it would be
 * src/discover/fish.c.
 */
#include "discover_impl.h"

#include <stdlib.h>

/* Local. No state is needed, but create must give one (destroy frees it). */
static cs_err fish_create(cs_ctx *ctx, const cs_config *cfg, const cs_feat_layout *L, void **st)
{
    (void)cfg;
    (void)L;
    char *s = NULL;
    const cs_err rc = cs_calloc(ctx, &s, 1, 1, "policy");
    if (rc == CS_OK)
        *st = s;
    return rc;
}

static void fish_destroy(void *st)
{
    free(st);
}

/* Local. The values of entries [first, first + n): what the engine calls for new entries and
 * for entries whose link data changed (a new parent, a better anchor). */
static void fish_value(void *st, cs_frontier_view *v, int64_t first, int64_t n)
{
    (void)st;
    for (int64_t i = first; i < first + n; i++) {
        const cs_feat_parents *p = &v->lk[i].par;
        const float parents = p->n > 0 ? p->sum_rl / (float)p->n : 0.0f;
        v->q[i] = 0.5f * v->lk[i].anchor_rl + 0.5f * parents;
    }
}

static int fish_stale(void *st)
{
    (void)st;
    return 0; /* values change only with their entries' link data */
}

static double fish_epsilon(void *st)
{
    (void)st;
    return 0.0; /* no exploration */
}

const cs_discover_ops cs_discover_fish_ops = {
    .needs_relevance = 1,             /* it values pages by relevance */
    .reward = cs_discover_reward_han, /* what observe would see (it has none) */
    .create = fish_create,
    .destroy = fish_destroy,
    .value = fish_value,
    .stale = fish_stale,
    .epsilon = fish_epsilon,
};
