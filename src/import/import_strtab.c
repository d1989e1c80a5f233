/*
 * import string table: numbers node, host and topic names in order of first appearance.
 * Open addressing with linear probing over an arena of NUL-terminated strings; the arena grows
 * geometrically, so interning costs no allocation per string.
 */
#include "import_impl.h"

#include "crawlsim/rng.h"

#include <stdlib.h>
#include <string.h>

void cs_imp_strtab_init(cs_imp_strtab *t)
{
    memset(t, 0, sizeof *t);
}

void cs_imp_strtab_fini(cs_imp_strtab *t)
{
    free(t->arena);
    free(t->off);
    free(t->slot);
    free(t->tag);
    cs_imp_strtab_init(t);
}

/* FNV-1a over the bytes, then a 64-bit finaliser so that both the low bits (the slot) and
 * the high bits (the tag) are well mixed. */
static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return cs_mix64(h ^ len);
}

static int same(const cs_imp_strtab *t, int32_t id, const char *s, size_t len)
{
    const char *u = t->arena + t->off[id];
    /* The stored string is NUL-terminated and s holds no NUL (lines with NUL are rejected). */
    return memcmp(u, s, len) == 0 && u[len] == '\0';
}

/* Doubles the slot array (or creates it) and re-inserts every id. */
static cs_err rehash(cs_ctx *ctx, cs_imp_strtab *t)
{
    cs_err rc = CS_OK;
    size_t ns = t->n_slots ? 2 * t->n_slots : 1024;
    int32_t *slot = NULL;
    uint32_t *tag = NULL;
    CS_TRY(ctx, cs_alloc(ctx, &slot, ns, sizeof *slot, "name hash table"));
    CS_TRY(ctx, cs_alloc(ctx, &tag, ns, sizeof *tag, "name hash table"));
    memset(slot, 0xff, ns * sizeof *slot);
    for (int32_t id = 0; id < t->n; id++) {
        const char *u = t->arena + t->off[id];
        size_t len = strlen(u);
        uint64_t h = hash_bytes(u, len);
        size_t i = (size_t)h & (ns - 1);
        while (slot[i] >= 0)
            i = (i + 1) & (ns - 1);
        slot[i] = id;
        tag[i] = (uint32_t)(h >> 32);
    }
    free(t->slot);
    free(t->tag);
    t->slot = slot;
    t->tag = tag;
    t->n_slots = ns;
    return CS_OK;
fail:
    free(slot);
    free(tag);
    return rc;
}

int32_t cs_imp_strtab_find(const cs_imp_strtab *t, const char *s, size_t len)
{
    if (t->n_slots == 0)
        return -1;
    uint64_t h = hash_bytes(s, len);
    uint32_t tg = (uint32_t)(h >> 32);
    size_t mask = t->n_slots - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        int32_t id = t->slot[i];
        if (id < 0)
            return -1;
        if (t->tag[i] == tg && same(t, id, s, len))
            return id;
    }
}

cs_err cs_imp_strtab_intern(cs_ctx *ctx, cs_imp_strtab *t, const char *s, size_t len, int32_t *id,
                            int *added, const char *what)
{
    cs_err rc = CS_OK;
    if (added != NULL)
        *added = 0;
    if ((size_t)t->n * 2 >= t->n_slots)
        CS_TRY(ctx, rehash(ctx, t));
    uint64_t h = hash_bytes(s, len);
    uint32_t tg = (uint32_t)(h >> 32);
    size_t mask = t->n_slots - 1;
    size_t i = (size_t)h & mask;
    for (; t->slot[i] >= 0; i = (i + 1) & mask) {
        if (t->tag[i] == tg && same(t, t->slot[i], s, len)) {
            *id = t->slot[i];
            return CS_OK;
        }
    }
    if (t->n >= INT32_MAX - 1)
        return cs_fail(ctx, CS_ERR_LIMIT, "more than %d distinct %s", INT32_MAX - 1, what);
    CS_TRY(ctx, cs_grow(ctx, &t->arena, &t->arena_cap, t->arena_len + len + 1, 1, what));
    CS_TRY(ctx, cs_grow(ctx, &t->off, &t->off_cap, (size_t)t->n + 1, sizeof *t->off, what));
    memcpy(t->arena + t->arena_len, s, len);
    t->arena[t->arena_len + len] = '\0';
    t->off[t->n] = (int64_t)t->arena_len;
    t->arena_len += len + 1;
    t->slot[i] = t->n;
    t->tag[i] = tg;
    *id = t->n++;
    if (added != NULL)
        *added = 1;
    return CS_OK;
fail:
    return rc;
}
