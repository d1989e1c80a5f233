/*
 * slice: lifecycle of the plain page-slice and meta structs.
 */
#include "crawlsim/slice.h"

#include <stdlib.h>
#include <string.h>

void cs_graph_slice_init(cs_graph_slice *g)
{
    memset(g, 0, sizeof *g);
}

void cs_graph_slice_fini(cs_graph_slice *g)
{
    if (g == NULL)
        return;
    free(g->offsets);
    free(g->targets);
    free(g->weights);
    free(g->host);
    free(g->topic);
    free(g->relevance);
    free(g->delta);
    free(g->mu);
    free(g->observable);
    free(g->term_offsets);
    free(g->term_index);
    free(g->term_value);
    memset(g, 0, sizeof *g);
}

cs_err cs_graph_slice_alloc(cs_ctx *ctx, cs_graph_slice *g, int64_t n, int64_t n_links)
{
    cs_err rc = CS_OK;
    if (n < 0 || n_links < 0)
        return cs_fail(ctx, CS_ERR_ARG, "negative slice size (%lld pages, %lld links)",
                       (long long)n, (long long)n_links);
    size_t un = (size_t)n;
    CS_TRY(ctx, cs_calloc(ctx, &g->offsets, un + 1, sizeof *g->offsets, "link offsets"));
    CS_TRY(ctx, cs_alloc(ctx, &g->targets, (size_t)n_links, sizeof *g->targets, "link targets"));
    CS_TRY(ctx, cs_alloc(ctx, &g->host, un, sizeof *g->host, "page hosts"));
    CS_TRY(ctx, cs_alloc(ctx, &g->topic, un, sizeof *g->topic, "page topics"));
    CS_TRY(ctx, cs_alloc(ctx, &g->relevance, un, sizeof *g->relevance, "page relevance"));
    CS_TRY(ctx, cs_alloc(ctx, &g->delta, un, sizeof *g->delta, "page change rates"));
    CS_TRY(ctx, cs_alloc(ctx, &g->mu, un, sizeof *g->mu, "page importance"));
    CS_TRY(ctx, cs_alloc(ctx, &g->observable, un, sizeof *g->observable, "page observability"));
    g->n = n;
    return CS_OK;
fail:
    cs_graph_slice_fini(g);
    return rc;
}

void cs_graph_meta_init(cs_graph_meta *m)
{
    memset(m, 0, sizeof *m);
    m->target_topic = -1;
}

void cs_graph_meta_fini(cs_graph_meta *m)
{
    if (m == NULL)
        return;
    free(m->host_blob);
    free(m->host_name_off);
    free(m->topic_blob);
    free(m->topic_name_off);
    cs_graph_meta_init(m);
}

const char *cs_graph_meta_host_name(const cs_graph_meta *m, int64_t i)
{
    if (m->host_blob == NULL || m->host_name_off == NULL || i < 0 || i >= m->n_hosts)
        return NULL;
    return m->host_blob + m->host_name_off[i];
}

const char *cs_graph_meta_topic_name(const cs_graph_meta *m, int32_t i)
{
    if (m->topic_blob == NULL || m->topic_name_off == NULL || i < 0 || i >= m->n_topics)
        return NULL;
    return m->topic_blob + m->topic_name_off[i];
}

void cs_block_range(int64_t n, int rank, int size, int64_t *first, int64_t *count)
{
    int64_t q = n / size, r = n % size;
    *first = rank * q + (rank < r ? rank : r);
    *count = q + (rank < r ? 1 : 0);
}
