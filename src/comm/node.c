/*
 * comm/node: memory shared by the ranks of one node (MPI-3 shared-memory windows), for tables
 * that every rank would otherwise build and hold itself, such as the generator's model of a
 * world generated in memory (src/gen, docs/developer/memory.md). The node's ranks build such
 * a table together, each its share, and each reads all of it.
 */
#include "crawlsim/comm.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef struct node_win {
    MPI_Win win;
    void *base;
} node_win;

struct cs_node {
    MPI_Comm comm; /* MPI_COMM_NULL: this rank alone, memory from malloc */
    int rank, size;
    node_win *w;
    int n, cap;
};

cs_err cs_node_create(cs_ctx *ctx, int share, cs_node **out)
{
    cs_node *n = calloc(1, sizeof *n);
    cs_err rc = n == NULL ? cs_fail(ctx, CS_ERR_NOMEM, "out of memory for the node") : CS_OK;
    if (n != NULL)
        n->comm = MPI_COMM_NULL;
    const char *e = getenv("CRAWLSIM_SHARED");
    share = share && !(e != NULL && strcmp(e, "0") == 0);
    if (share && !cs_comm_is_local(ctx)) {
        /* every rank makes the split (collective); a rank apart takes no part in a node */
        MPI_Comm c = MPI_COMM_NULL;
        const int type = rc == CS_OK && share ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED;
        if (MPI_Comm_split_type(ctx->comm, type, ctx->rank, MPI_INFO_NULL, &c) != MPI_SUCCESS)
            c = MPI_COMM_NULL;
        int size = 1;
        if (c != MPI_COMM_NULL)
            MPI_Comm_size(c, &size);
        if (size > 1 && n != NULL) {
            n->comm = c;
            MPI_Comm_rank(c, &n->rank);
            n->size = size;
        } else if (c != MPI_COMM_NULL) {
            MPI_Comm_free(&c);
        }
    }
    if (share)
        rc = cs_agree(ctx, rc);
    if (rc != CS_OK) {
        cs_node_destroy(&n);
        return rc;
    }
    if (n->comm == MPI_COMM_NULL) {
        n->rank = 0;
        n->size = 1;
    }
    *out = n;
    return CS_OK;
}

int cs_node_rank(const cs_node *n)
{
    return n->rank;
}

int cs_node_size(const cs_node *n)
{
    return n->size;
}

cs_err cs_node_alloc(cs_ctx *ctx, cs_node *n, size_t bytes, void **ptr)
{
    *ptr = NULL;
    int bad = n->n == n->cap;
    if (bad) {
        int cap = n->cap > 0 ? 2 * n->cap : 8;
        node_win *w = realloc(n->w, (size_t)cap * sizeof *w);
        if (w != NULL) {
            n->w = w;
            n->cap = cap;
            bad = 0;
        }
    }
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    if (n->comm == MPI_COMM_NULL) {
        base = bad ? NULL : malloc(bytes > 0 ? bytes : 1);
        bad = base == NULL;
        cs_mem_huge(base, bytes, 0); /* (the node's shared memory stays in the system's pages) */
    } else {
        /* rank 0 of the node holds the memory; the others map it (MPI collective: every rank
         * of the node calls it, also one that failed above) */
        const MPI_Aint mine = n->rank == 0 ? (MPI_Aint)(bytes > 0 ? bytes : 1) : 0;
        if (MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, n->comm, &base, &win) != MPI_SUCCESS)
            win = MPI_WIN_NULL;
        int disp = 1;
        MPI_Aint size = 0;
        if (win != MPI_WIN_NULL &&
            MPI_Win_shared_query(win, 0, &size, &disp, &base) == MPI_SUCCESS) {
            MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        } else {
            base = NULL;
        }
        int any = bad || base == NULL, all = 0;
        MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_LOR, n->comm);
        bad = all;
        if (bad && win != MPI_WIN_NULL) {
            if (base != NULL)
                MPI_Win_unlock_all(win);
            MPI_Win_free(&win);
        }
    }
    if (bad) {
        if (n->comm == MPI_COMM_NULL)
            free(base);
        return cs_fail(ctx, CS_ERR_NOMEM, "out of memory for %zu bytes shared by the node's ranks",
                       bytes);
    }
    n->w[n->n].win = win;
    n->w[n->n++].base = base;
    *ptr = base;
    return CS_OK;
}

void cs_node_free(cs_node *n, void *ptr)
{
    if (n == NULL || ptr == NULL)
        return;
    for (int i = 0; i < n->n; i++) {
        if (n->w[i].base != ptr)
            continue;
        if (n->comm == MPI_COMM_NULL) {
            free(ptr);
        } else {
            MPI_Win_unlock_all(n->w[i].win);
            MPI_Win_free(&n->w[i].win);
        }
        n->w[i] = n->w[--n->n];
        return;
    }
}

void cs_node_sync(cs_node *n)
{
    if (n->comm == MPI_COMM_NULL)
        return;
    for (int i = 0; i < n->n; i++)
        MPI_Win_sync(n->w[i].win);
    MPI_Barrier(n->comm);
    for (int i = 0; i < n->n; i++)
        MPI_Win_sync(n->w[i].win);
}

void cs_node_destroy(cs_node **pn)
{
    if (pn == NULL || *pn == NULL)
        return;
    cs_node *n = *pn;
    while (n->n > 0)
        cs_node_free(n, n->w[n->n - 1].base);
    if (n->comm != MPI_COMM_NULL)
        MPI_Comm_free(&n->comm);
    free(n->w);
    free(n);
    *pn = NULL;
}
