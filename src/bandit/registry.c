/*
 * bandit/registry: the one registry of the restless-bandit policies (bandit.h), looked up by name
 * by `crawlsim bandit` and by the re-crawl side (refresh.policy = bandit-*), and the state and
 * slot cycle every group policy shares: allocation of the slot's crawls (the policy's choose),
 * outcomes, learning (the policy's learn), ages. A new policy is one file with its
 * cs_bandit_ops and one line in src/config/registry_bandit.def, from which `registry` below, the
 * externs and the refresh.policy choices are made (docs/developer/adding-a-policy.md).
 */
#include "bandit/bandit_impl.h"
#include "crawlsim/config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *recrawl_name; /* recrawl_name NULL: not a re-crawl policy */
    const cs_bandit_ops *ops;
} registry[] = {
#define CS_BANDIT_POLICY(id, nm, rn, sum) {nm, rn, &cs_bandit_##id##_ops},
#define CS_BANDIT_ONLY(id, nm) {nm, NULL, &cs_bandit_##id##_ops},
#include "config/registry_bandit.def"
#undef CS_BANDIT_POLICY
#undef CS_BANDIT_ONLY
};
#define NREG ((int)(sizeof registry / sizeof registry[0]))

const cs_bandit_ops *cs_bandit_at(int i)
{
    return i >= 0 && i < NREG ? registry[i].ops : NULL;
}

const cs_bandit_ops *cs_bandit_find(const char *name)
{
    for (int i = 0; name != NULL && i < NREG; i++)
        if (strcmp(registry[i].name, name) == 0)
            return registry[i].ops;
    return NULL;
}

const cs_bandit_ops *cs_bandit_find_recrawl(const char *policy)
{
    for (int i = 0; policy != NULL && i < NREG; i++)
        if (registry[i].recrawl_name != NULL && strcmp(registry[i].recrawl_name, policy) == 0)
            return registry[i].ops;
    return NULL;
}

/* The registry index of ops, -1 for another table. */
static int index_of(const cs_bandit_ops *ops)
{
    for (int i = 0; i < NREG; i++)
        if (registry[i].ops == ops)
            return i;
    return -1;
}

const char *cs_bandit_name(const cs_bandit_ops *ops)
{
    const int i = index_of(ops);
    return i >= 0 ? registry[i].name : "(unregistered)";
}

const char *cs_bandit_recrawl_name(const cs_bandit_ops *ops)
{
    const int i = index_of(ops);
    return i >= 0 ? registry[i].recrawl_name : NULL;
}

void cs_bandit_settings(const cs_bandit_config *b, cs_fgdqn_config *fc, cs_lspe_config *lc)
{
    cs_fgdqn_config_default(fc);
    fc->hidden1 = b->hidden1;
    fc->hidden2 = b->hidden2;
    fc->gamma = b->gamma;
    fc->eps_start = b->eps_start;
    fc->eps_end = b->eps_end;
    fc->eps_steps = b->eps_steps;
    fc->lr = b->lr;
    fc->lr_decay = b->lr_decay;
    fc->noise = b->noise;
    fc->batch = b->batch;
    fc->replay = b->replay;
    fc->x_scale = b->x_scale;
    cs_lspe_config_default(lc);
    lc->kappa = b->learn_kappa;
    lc->gamma = b->learn_gamma;
    lc->delta = b->learn_delta;
    lc->epsilon = b->learn_epsilon;
    lc->a_c = b->learn_a_c;
    lc->a_period = b->learn_a_period;
    lc->b_c = b->learn_b_c;
    lc->b_period = b->learn_b_period;
    lc->inverse = b->learn_inverse;
    lc->features = b->learn_features == 0 ? 2 : 1;
}

/* ---- helpers of the policy files ------------------------------------------------------------- */

cs_err bandit_pick(cs_ctx *ctx, cs_bandit *b, int64_t k)
{
    cs_err rc = cs_grow(ctx, &b->picks, &b->picks_cap, (size_t)b->npicks + 1, sizeof *b->picks,
                        "bandit picks");
    if (rc != CS_OK)
        return rc;
    b->picks[b->npicks++] = k;
    if (b->alloc[k]++ == 0)
        b->chosen[b->nchosen++] = k;
    return CS_OK;
}

static int by_key_desc(const void *x, const void *y)
{
    const bandit_kv *a = x, *c = y;
    if (a->v != c->v)
        return a->v > c->v ? -1 : 1;
    return (a->k > c->k) - (a->k < c->k);
}

void bandit_sort_desc(int64_t *elig, int64_t n, const double *v, bandit_kv *ord)
{
    for (int64_t e = 0; e < n; e++) {
        ord[e].v = v[elig[e]];
        ord[e].k = elig[e];
    }
    qsort(ord, (size_t)n, sizeof *ord, by_key_desc);
    for (int64_t e = 0; e < n; e++)
        elig[e] = ord[e].k;
}

double bandit_gamma_draw(cs_rng *r, double shape)
{
    const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = cs_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = cs_rng_uniform_pos(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

/* ---- the group policy's life ----------------------------------------------------------------- */

void cs_bandit_destroy(cs_bandit **pb)
{
    if (pb == NULL || *pb == NULL)
        return;
    cs_bandit *b = *pb;
    if (b->ops->destroy != NULL)
        b->ops->destroy(b);
    free(b->w);
    free(b->ta);
    free(b->tb);
    free(b->X);
    free(b->Y);
    free(b->alloc);
    free(b->chosen);
    free(b->picks);
    free(b->elig);
    free(b->rew);
    free(b->val);
    free(b->ord);
    free(b);
    *pb = NULL;
}

cs_err cs_bandit_create(cs_ctx *ctx, const cs_bandit_ops *ops, const cs_bandit_setup *s,
                        cs_bandit **out)
{
    cs_err rc = CS_OK;
    cs_bandit *b = NULL;
    if (ops == NULL || ops->choose == NULL || s->K < 1)
        return cs_fail(ctx, CS_ERR_ARG, "bandit policy %s: not a group policy, or no groups",
                       ops != NULL ? cs_bandit_name(ops) : "(null)");
    CS_TRY(ctx, cs_calloc(ctx, &b, 1, sizeof *b, "bandit policy"));
    b->ops = ops;
    b->s = *s;
    b->K = s->K;
    const size_t Kz = (size_t)s->K;
    CS_TRY(ctx, cs_calloc(ctx, &b->w, Kz, sizeof *b->w, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->ta, Kz, sizeof *b->ta, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->tb, Kz, sizeof *b->tb, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->X, Kz, sizeof *b->X, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->Y, Kz, 1, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->alloc, Kz, sizeof *b->alloc, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->chosen, Kz, sizeof *b->chosen, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->elig, Kz, sizeof *b->elig, "bandit groups"));
    CS_TRY(ctx, cs_calloc(ctx, &b->rew, Kz, sizeof *b->rew, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->val, Kz, sizeof *b->val, "bandit groups"));
    CS_TRY(ctx, cs_alloc(ctx, &b->ord, Kz, sizeof *b->ord, "bandit groups"));
    for (int64_t k = 0; k < s->K; k++)
        b->ta[k] = b->tb[k] = 1.0;
    if (ops->create != NULL)
        CS_TRY(ctx, ops->create(ctx, b));
    *out = b;
    return CS_OK;
fail:
    cs_bandit_destroy(&b);
    return rc;
}

cs_err cs_bandit_sync(cs_ctx *ctx, cs_bandit *b, const double *w, double alpha, double scale)
{
    memcpy(b->w, w, (size_t)b->K * sizeof *b->w);
    b->alpha = alpha;
    b->scale = scale;
    return b->ops->sync != NULL ? b->ops->sync(ctx, b) : CS_OK;
}

cs_err cs_bandit_choose(cs_ctx *ctx, cs_bandit *b, cs_rng *g, const int64_t *elig, int64_t E,
                        int64_t n)
{
    for (int64_t j = 0; j < b->nchosen; j++)
        b->alloc[b->chosen[j]] = 0;
    b->nchosen = b->npicks = 0;
    b->qv_ok = 0;
    if (n <= 0 || E <= 0)
        return CS_OK;
    memcpy(b->elig, elig, (size_t)E * sizeof *b->elig);
    return b->ops->choose(ctx, b, g, b->elig, E, n);
}

const int64_t *cs_bandit_chosen(const cs_bandit *b, int64_t *n)
{
    *n = b->nchosen;
    return b->chosen;
}

const int64_t *cs_bandit_alloc(const cs_bandit *b)
{
    return b->alloc;
}

int64_t cs_bandit_slots(const cs_bandit *b)
{
    return b->slots;
}

void cs_bandit_outcome(cs_bandit *b, int64_t k, int64_t crawled, int64_t changed, double reward)
{
    b->ta[k] += (double)changed;
    b->tb[k] += (double)(crawled - changed);
    b->Y[k] = changed > 0;
    b->rew[k] = reward;
}

void cs_bandit_end_slot(cs_bandit *b)
{
    if (b->ops->learn != NULL)
        b->ops->learn(b);
    for (int64_t k = 0; k < b->K; k++)
        b->X[k] = b->alloc[k] > 0 ? 0 : b->X[k] + 1;
    b->slots++;
}

/* ---- checkpoints ----------------------------------------------------------------------------- */

/* The replicated state; the slot's picks are not kept (a checkpoint lies between slots). */
cs_err cs_bandit_save(cs_ctx *ctx, const cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const size_t L = sizeof nm;
    const int64_t si[2] = {b->K, b->slots};
    const double sd[2] = {b->alpha, b->scale};
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "state"), CS_CK_I64, 2, si));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "values"), CS_CK_F64, 2, sd));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "w"), CS_CK_F64, b->K, b->w));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "ta"), CS_CK_F64, b->K, b->ta));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "tb"), CS_CK_F64, b->K, b->tb));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "X"), CS_CK_I64, b->K, b->X));
    CS_TRY(ctx, cs_ckpt_put(ctx, ck, cs_ckpt_item(nm, L, prefix, "Y"), CS_CK_BYTES, b->K, b->Y));
    if (b->ops->save != NULL)
        CS_TRY(ctx, b->ops->save(ctx, b, ck, prefix));
fail:
    return rc;
}

cs_err cs_bandit_load(cs_ctx *ctx, cs_bandit *b, cs_ckpt *ck, const char *prefix)
{
    cs_err rc = CS_OK;
    char nm[256];
    const size_t L = sizeof nm;
    int64_t si[2];
    double sd[2];
    CS_TRY(ctx, cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "state"), CS_CK_I64, 2, si));
    if (si[0] != b->K)
        rc = cs_fail(ctx, CS_ERR_FORMAT, "checkpoint %s: bandit policy over %lld groups, not %lld",
                     cs_ckpt_path(ck), (long long)si[0], (long long)b->K);
    CS_TRY_AGREE(ctx, rc);
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "values"), CS_CK_F64, 2, sd));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "w"), CS_CK_F64, b->K, b->w));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "ta"), CS_CK_F64, b->K, b->ta));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "tb"), CS_CK_F64, b->K, b->tb));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "X"), CS_CK_I64, b->K, b->X));
    CS_TRY(ctx,
           cs_ckpt_get_exact(ctx, ck, cs_ckpt_item(nm, L, prefix, "Y"), CS_CK_BYTES, b->K, b->Y));
    b->slots = si[1];
    b->alpha = sd[0];
    b->scale = sd[1];
    if (b->ops->load != NULL)
        CS_TRY(ctx, b->ops->load(ctx, b, ck, prefix));
fail:
    return rc;
}
