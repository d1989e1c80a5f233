/*
 * fstate: the frontier's entries grouped by state (their feature code vectors), so that a policy
 * whose value is a function of the codes alone (a linear Q over discrete codes) is evaluated
 * once per distinct state, and the entries are walked in decreasing selection key without a
 * pass over all of them.
 *
 * Every code vector (G bytes) present is interned once as a state (an int32 id, reused after
 * its last member leaves); each state keeps its members in a binary min-heap ordered by page id,
 * and each member knows its state and its place in that heap. A member is named by the caller's
 * entry index e (the frontier's slot) and carries its page id (< 2^32, as cs_frontier_key
 * requires).
 *
 * The walk: the value of every member of a state is the state's value, so the members' keys
 * (cs_frontier_key(value, id): higher value first, then the lower page id) come out in
 * decreasing order from one priority queue of heap cursors: the states are sorted by value
 * once per walk, each state's heap root is queued when no queued key has a lower value than the
 * state's (so states of equal value are all queued before any of their members is taken, and
 * their members interleave by id exactly as the keys order them), and a popped node queues its
 * two children. The first k keys cost O(S log S + k log(k + S')) for S live states, S' of them
 * at the values reached, whatever the number of members.
 */
#ifndef CRAWLSIM_FSTATE_H
#define CRAWLSIM_FSTATE_H

#include "crawlsim/core.h"

#include <stdint.h>

typedef struct cs_fstate cs_fstate;

/* Local. An empty grouping of code vectors of G bytes (1 <= G <= 255). CS_ERR_ARG, CS_ERR_NOMEM. */
CS_API cs_err cs_fstate_create(cs_ctx *ctx, int G, cs_fstate **out);
/* Local. Frees; accepts NULL and sets *st = NULL. */
CS_API void cs_fstate_destroy(cs_fstate **st);
/* Local. Live states (with at least one member) and members. */
CS_API int64_t cs_fstate_states(const cs_fstate *st);
CS_API int64_t cs_fstate_members(const cs_fstate *st);
/* Local. Entry e (not a member, e < 2^31 - 1) joins the state of codes[0..G) with page id
 * (< 2^32). CS_ERR_NOMEM (nothing changed). */
CS_API cs_err cs_fstate_insert(cs_ctx *ctx, cs_fstate *st, int64_t e, int64_t id,
                               const uint8_t *codes);
/* Local. Member e leaves its state (a state without members is released). */
CS_API void cs_fstate_remove(cs_fstate *st, int64_t e);
/* Local. Member `from` is renamed `to` (to is not a member): the frontier moved the entry. */
CS_API void cs_fstate_move(cs_fstate *st, int64_t from, int64_t to);
/* Local. Member e's codes become codes[0..G) (its state changes when they differ). Errors as
 * cs_fstate_insert (e is then no member). */
CS_API cs_err cs_fstate_recode(cs_ctx *ctx, cs_fstate *st, int64_t e, const uint8_t *codes);
/* Local. Member e's state id, and a state's codes (G bytes). */
CS_API int32_t cs_fstate_of(const cs_fstate *st, int64_t e);
CS_API const uint8_t *cs_fstate_codes(const cs_fstate *st, int32_t sid);
/* Local. The state table: *n state ids (live or released), their codes (n x G, contiguous) and
 * their values (writable; a released state's value is ignored). Valid until the next insert or
 * recode. */
CS_API void cs_fstate_table(cs_fstate *st, int64_t *n, const uint8_t **codes, float **val);

/* Local. Bytes held: per entry slot (state and heap place) and heap member, per state id. */
CS_API double cs_fstate_bytes(const cs_fstate *st);

/* Local. Starts a walk of the members in decreasing key (cs_frontier_key(state's value, id)).
 * The members and values must not change until the walk's last cs_fstate_walk_next. */
CS_API cs_err cs_fstate_walk_begin(cs_ctx *ctx, cs_fstate *st);
/* Local. The walk's next (at most) k members: their keys and entries, in decreasing key order.
 * Returns how many (0: the walk is over). CS_ERR_NOMEM in *rc (then 0). */
CS_API int64_t cs_fstate_walk_next(cs_ctx *ctx, cs_fstate *st, int64_t k, uint64_t *keys,
                                   int64_t *ents, cs_err *rc);

#endif
