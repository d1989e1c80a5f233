/*
 * bandit internals: the state every group policy shares (struct cs_bandit) and the helpers the
 * policy files use to allocate a slot's crawls; the ops tables of the registered policies.
 */
#ifndef CRAWLSIM_BANDIT_IMPL_H
#define CRAWLSIM_BANDIT_IMPL_H

#include "crawlsim/bandit.h"

#include <stddef.h>
#include <stdint.h>

/* A group and its sort key (decreasing key, then lower group: bandit_sort_desc). */
typedef struct bandit_kv {
    double v;
    int64_t k;
} bandit_kv;

struct cs_bandit {
    const cs_bandit_ops *ops;
    cs_bandit_setup s;
    int64_t K;
    /* replicated state */
    double *w;       /* sync input: static-opt draw weights; whittle, learn: u_k */
    double alpha;    /* whittle, learn: exp(-c) */
    double scale;    /* static-opt: the draw's scale (0: the eligible groups' total) */
    double *ta, *tb; /* Beta posteriors per group (Thompson): changes found, not found, + 1 */
    int64_t *X;      /* slots since the group was last chosen */
    uint8_t *Y;      /* whether the group's last crawls found a change */
    int64_t slots;   /* slots ended */
    cs_fgdqn *net;   /* fgdqn */
    cs_lspe *lspe;   /* learn: made at the first sync with u > 0 */
    uint8_t *act;    /* learn: the active groups of the last step */
    /* the slot */
    int64_t *alloc, *chosen, *picks, *elig;
    int64_t nchosen, npicks;
    size_t picks_cap;
    double *rew; /* per chosen group: the slot's reward */
    /* scratch */
    float *z, *z1, *qv; /* fgdqn: the states before and after the slot, Q */
    int qv_ok;          /* fgdqn: qv holds Q(z, .) of this slot */
    double *val;        /* whittle: the index per group */
    bandit_kv *ord;     /* sort scratch */
};

/* Local. Adds one crawl of group k to the slot (b->picks, b->alloc, b->chosen). CS_ERR_NOMEM. */
cs_err bandit_pick(cs_ctx *ctx, cs_bandit *b, int64_t k);

/* Local. Sorts elig[0..n) by decreasing v[group], ties to the lower group (ord: n pairs). */
void bandit_sort_desc(int64_t *elig, int64_t n, const double *v, bandit_kv *ord);

/* Local. Gamma(shape >= 1, 1) by Marsaglia & Tsang (ACM TOMS 26(3), 2000). */
double bandit_gamma_draw(cs_rng *r, double shape);

/* The registered policies (src/config/registry_bandit.def lists them). */
#define CS_BANDIT_POLICY(id, nm, rn, sum) extern const cs_bandit_ops cs_bandit_##id##_ops;
#define CS_BANDIT_ONLY(id, nm) extern const cs_bandit_ops cs_bandit_##id##_ops;
#include "config/registry_bandit.def"
#undef CS_BANDIT_POLICY
#undef CS_BANDIT_ONLY

#endif
