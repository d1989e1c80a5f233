/*
 * sim: the record phase's state (sim_results.c): the counters and phase times every phase adds
 * to, the series of the record points and the fetch trace, written to the results file.
 */
#ifndef CRAWLSIM_SIM_RECORD_H
#define CRAWLSIM_SIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* Phases of a tick (wall-clock seconds, /timing). evaluate: re-evaluating the frontier (the
 * synchronous method); route: sorting the tick's link records to their owners (local work: this
 * rank's stay in place, the others' are copied into the outboxes); exchange: the fetched pages'
 * allgather and the outboxes' alltoall(v); insert: merging link records into the frontier (with
 * their values); wait: blocked in the count exchange (load imbalance); allreduce: weights, the
 * tick's integer allreduce and metrics; refresh: the tick's [refresh] work (the re-crawls due,
 * their quota, noting the fetched pages, the re-solve with its collectives). */
enum phase {
    PH_EVALUATE,
    PH_SELECT,
    PH_FETCH,
    PH_LEARN,
    PH_ROUTE,
    PH_EXCHANGE,
    PH_INSERT,
    PH_WAIT,
    PH_ALLREDUCE,
    PH_REFRESH,
    NPH
};

/* Local counters of a rank (int64, summed over ranks at record points). */
enum counter {
    C_FETCHED,
    C_RELEVANT,
    C_FRONTIER,
    C_EVICTIONS,
    C_QEVALS,
    C_BYTES,
    C_MESSAGES,
    C_LINKS,
    C_DROPPED,
    C_POLITE,
    C_LEAVES,     /* Tree-Frontier leaves now (not cumulative) */
    C_COLLS,      /* collective operations inside ticks (cs_ctx.coll; record points excluded) */
    C_COLL_BYTES, /* their payload bytes from this rank */
    C_ALLREDUCES, /* of which allreduces */
    C_ALLREDUCE_BYTES,
    C_NOTES, /* visited notes sent: fetched page ids to their subscribers (sim_visited.c) */
    NC
};

/* The series of the record points (sim_record): tick, task, relevant hosts, then the counters;
 * and the phases' times. */
enum { S_TICK = NC, S_TASK, S_HOSTS, NS };
typedef struct series {
    int64_t n, cap;
    int64_t *v[NS];
    double *t[NPH];
} series;

/* The record phase's state: counters, phase times, the series and the fetch trace. */
typedef struct sim_record_phase {
    int64_t c[NC];
    double t[NPH];
    series s;
    int64_t *trace; /* run.trace: (tick, page) pairs of this rank's fetches */
    size_t trace_len, trace_cap;
} sim_record_phase;

#endif
