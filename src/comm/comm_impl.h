/*
 * comm: what the files of the module share and nothing else may use.
 */
#ifndef CRAWLSIM_COMM_IMPL_H
#define CRAWLSIM_COMM_IMPL_H

#include "crawlsim/comm.h"

/*
 * Collective(ctx->comm). crawl.exchange = node (comm/hier.c): cs_comm_exchange's two-level
 * method; the same contract. Makes o->hier (its communicators) at its first call. Errors, agreed:
 * CS_ERR_NOMEM before any message; a buffer that cannot grow once messages are under way, or a
 * node's records of one exchange beyond 2 GiB, abort the job with a message.
 */
cs_err cs_hier_exchange(cs_ctx *ctx, cs_outbox *o, char **recv, size_t *recv_cap, size_t *recv_len,
                        cs_exchange_stats *st);

/* Local. Frees o->hier (its communicators: every rank frees its outboxes) and sets it NULL. */
void cs_hier_destroy(cs_outbox *o);

#endif
