/*
 * compare, values: describing HDF5 datatypes, shapes, indices and values in difference lines, and
 * comparing blocks of elements byte by byte or as strings (compare.h has the rules).
 */
#include "compare_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- describing types, shapes, indices and values ---- */

void cs_cmp_describe_type(hid_t t, char *out, size_t cap)
{
    const size_t sz = H5Tget_size(t);
    const char *ord = H5Tget_order(t) == H5T_ORDER_BE ? "BE" : "LE";
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
        snprintf(out, cap, "%sint%zu %s", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", 8 * sz, ord);
        break;
    case H5T_FLOAT:
        snprintf(out, cap, "float%zu %s", 8 * sz, ord);
        break;
    case H5T_STRING: {
        const char *cset = H5Tget_cset(t) == H5T_CSET_UTF8 ? "UTF-8" : "ASCII";
        if (H5Tis_variable_str(t) > 0) {
            snprintf(out, cap, "variable-length string (%s)", cset);
        } else {
            H5T_str_t pad = H5Tget_strpad(t);
            snprintf(out, cap, "string of %zu bytes (%s, %s)", sz, cset,
                     pad == H5T_STR_NULLTERM   ? "NUL-terminated"
                     : pad == H5T_STR_NULLPAD  ? "NUL-padded"
                     : pad == H5T_STR_SPACEPAD ? "space-padded"
                                               : "other padding");
        }
        break;
    }
    case H5T_BITFIELD:
        snprintf(out, cap, "bitfield%zu %s", 8 * sz, ord);
        break;
    case H5T_OPAQUE:
        snprintf(out, cap, "opaque of %zu bytes", sz);
        break;
    case H5T_COMPOUND:
        snprintf(out, cap, "compound of %d members, %zu bytes", H5Tget_nmembers(t), sz);
        break;
    case H5T_ENUM:
        snprintf(out, cap, "enum of %d members, %zu bytes", H5Tget_nmembers(t), sz);
        break;
    case H5T_ARRAY:
        snprintf(out, cap, "array of %zu bytes", sz);
        break;
    case H5T_VLEN:
        snprintf(out, cap, "variable-length sequence");
        break;
    case H5T_REFERENCE:
        snprintf(out, cap, "reference");
        break;
    case H5T_TIME:
        snprintf(out, cap, "time of %zu bytes", sz);
        break;
    default:
        snprintf(out, cap, "datatype of unknown class");
        break;
    }
}

void cs_cmp_describe_shape(H5S_class_t cls, int nd, const hsize_t *dims, char *out, size_t cap)
{
    if (cls == H5S_SCALAR) {
        snprintf(out, cap, "scalar");
        return;
    }
    if (cls == H5S_NULL) {
        snprintf(out, cap, "null (no data)");
        return;
    }
    size_t len = (size_t)snprintf(out, cap, "[");
    for (int i = 0; i < nd && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", i ? "," : "",
                                (unsigned long long)dims[i]);
    if (len < cap)
        snprintf(out + len, cap - len, "]");
}

/* "[i,j]" of the flat index of an element of a [dims] array. */
void cs_cmp_describe_index(int nd, const hsize_t *dims, int64_t flat, char *out, size_t cap)
{
    unsigned long long idx[H5S_MAX_RANK];
    unsigned long long f = (unsigned long long)flat;
    for (int i = nd - 1; i >= 0; i--) {
        unsigned long long d = dims[i] > 0 ? (unsigned long long)dims[i] : 1ULL;
        idx[i] = f % d;
        f /= d;
    }
    size_t len = (size_t)snprintf(out, cap, "[");
    for (int i = 0; i < nd && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", i ? "," : "", idx[i]);
    if (len < cap)
        snprintf(out + len, cap - len, "]");
}

/* Element bytes (file order) as hexadecimal, most significant first for ordered types. */
static void format_hex(const unsigned char *p, size_t sz, int big_first, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "0x");
    size_t shown = sz > 16 ? 16 : sz;
    for (size_t i = 0; i < shown && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%02x", p[big_first ? sz - 1 - i : i]);
    if (sz > shown && len < cap)
        snprintf(out + len, cap - len, "...");
}

/* One element of type t as text: integers and IEEE floats as numbers (with their bits when
 * `bits`), anything else as bytes. */
static void format_value(hid_t t, const unsigned char *p, int bits, char *out, size_t cap)
{
    const H5T_class_t cl = H5Tget_class(t);
    const size_t sz = H5Tget_size(t);
    const H5T_order_t ord = H5Tget_order(t);
    const int ordered = ord == H5T_ORDER_LE || ord == H5T_ORDER_BE;
    if ((cl == H5T_INTEGER || cl == H5T_FLOAT) && ordered && sz >= 1 && sz <= 8) {
        uint64_t u = 0;
        for (size_t i = 0; i < sz; i++)
            u = (u << 8) | p[ord == H5T_ORDER_LE ? sz - 1 - i : i];
        if (cl == H5T_INTEGER) {
            if (H5Tget_sign(t) == H5T_SGN_2) {
                if (sz < 8 && ((u >> (8 * sz - 1)) & 1u))
                    u |= ~(uint64_t)0 << (8 * sz);
                snprintf(out, cap, "%" PRId64, (int64_t)u);
            } else {
                snprintf(out, cap, "%" PRIu64, u);
            }
            return;
        }
        size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
        if (H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && mpos == 0) {
            double v = 0.0;
            int ok = 1;
            if (sz == 8 && spos == 63 && epos == 52 && esize == 11 && msize == 52) {
                memcpy(&v, &u, sizeof v);
                snprintf(out, cap, "%.17g", v);
            } else if (sz == 4 && spos == 31 && epos == 23 && esize == 8 && msize == 23) {
                uint32_t w = (uint32_t)u;
                float f = 0.0f;
                memcpy(&f, &w, sizeof f);
                snprintf(out, cap, "%.9g", (double)f);
            } else {
                ok = 0;
            }
            if (ok) {
                if (bits) {
                    size_t len = strlen(out);
                    snprintf(out + len, cap - len, " (bits 0x%0*" PRIx64 ")", (int)(2 * sz), u);
                }
                return;
            }
        }
    }
    format_hex(p, sz, ordered && ord == H5T_ORDER_LE && cl != H5T_STRING, out, cap);
}

/* s[0, n) quoted, from character `from`, at most CS_CMP_SHOW_CHARS characters, escaped. */
static void format_string(const char *s, size_t n, size_t from, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s\"", from > 0 ? "..." : "");
    size_t end = n - from > CS_CMP_SHOW_CHARS ? from + CS_CMP_SHOW_CHARS : n;
    for (size_t i = from; i < end && len + 8 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            len += (size_t)snprintf(out + len, cap - len, "\\%c", ch);
        else if (ch == '\n')
            len += (size_t)snprintf(out + len, cap - len, "\\n");
        else if (ch < 32 || ch >= 127)
            len += (size_t)snprintf(out + len, cap - len, "\\x%02x", ch);
        else
            out[len++] = (char)ch;
    }
    snprintf(out + len, cap - len, "\"%s", end < n ? "..." : "");
}

/* Content length of a fixed-length string element of sz bytes with padding pad. */
static size_t fixstr_len(const unsigned char *p, size_t sz, H5T_str_t pad)
{
    if (pad == H5T_STR_SPACEPAD) {
        size_t n = sz;
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\0'))
            n--;
        return n;
    }
    const unsigned char *z = memchr(p, 0, sz);
    return z != NULL ? (size_t)(z - p) : sz;
}

/* Records the first differing pair of strings, shown around their first differing character. */
static void record_strings(valcmp *vc, const char *x, size_t nx, const char *y, size_t ny)
{
    size_t k = 0;
    while (k < nx && k < ny && x[k] == y[k])
        k++;
    size_t from = k > CS_CMP_SHOW_CHARS / 2 ? k - CS_CMP_SHOW_CHARS / 2 : 0;
    format_string(x, nx, from, vc->va, sizeof vc->va);
    format_string(y, ny, from, vc->vb, sizeof vc->vb);
    vc->note[0] = '\0';
    if (nx > CS_CMP_SHOW_CHARS || ny > CS_CMP_SHOW_CHARS)
        snprintf(vc->note, sizeof vc->note, " (first difference at character %zu)", k);
}

/* Compares n elements (sizes es[0] and es[1] in the two buffers) of the block starting at flat
 * index base; fixed-length strings of the two files may differ in size and padding. */
void cs_cmp_compare_elems(valcmp *vc, vkind vk, hid_t t, const size_t es[2], const H5T_str_t pad[2],
                          const unsigned char *x, const unsigned char *y, int64_t n, int64_t base)
{
    if (vk == VK_BYTES && memcmp(x, y, (size_t)n * es[0]) == 0)
        return;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *a = x + (size_t)i * es[0], *b = y + (size_t)i * es[1];
        int same = 0;
        const char *sa = NULL, *sb = NULL;
        size_t na = 0, nb = 0;
        if (vk == VK_BYTES) {
            same = memcmp(a, b, es[0]) == 0;
        } else if (vk == VK_FIXSTR) {
            na = fixstr_len(a, es[0], pad[0]);
            nb = fixstr_len(b, es[1], pad[1]);
            same = na == nb && memcmp(a, b, na) == 0;
            sa = (const char *)a;
            sb = (const char *)b;
        } else {
            char *pa = NULL, *pb = NULL;
            memcpy(&pa, a, sizeof pa);
            memcpy(&pb, b, sizeof pb);
            same = pa == NULL || pb == NULL ? pa == pb : strcmp(pa, pb) == 0;
            sa = pa != NULL ? pa : "";
            sb = pb != NULL ? pb : "";
            na = strlen(sa);
            nb = strlen(sb);
        }
        if (same)
            continue;
        if (vc->ndiff == 0) {
            vc->first = base + i;
            if (vk == VK_BYTES) {
                format_value(t, a, 0, vc->va, sizeof vc->va);
                format_value(t, b, 0, vc->vb, sizeof vc->vb);
                if (strcmp(vc->va, vc->vb) == 0) { /* NaN payloads, bits a number hides */
                    format_value(t, a, 1, vc->va, sizeof vc->va);
                    format_value(t, b, 1, vc->vb, sizeof vc->vb);
                }
            } else {
                record_strings(vc, sa, na, sb, nb);
            }
        }
        vc->ndiff++;
    }
}

/* Whether the elements of t can be compared byte for byte: no variable-length data (pointers)
 * and no references (addresses) anywhere inside. */
int cs_cmp_plain_bytes(hid_t t)
{
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
    case H5T_FLOAT:
    case H5T_BITFIELD:
    case H5T_OPAQUE:
    case H5T_ENUM:
    case H5T_TIME:
        return 1;
    case H5T_STRING:
        return H5Tis_variable_str(t) == 0;
    case H5T_ARRAY: {
        hid_t s = H5Tget_super(t);
        int ok = s >= 0 && cs_cmp_plain_bytes(s);
        if (s >= 0)
            H5Tclose(s);
        return ok;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t), ok = n >= 0;
        for (int i = 0; ok && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            ok = m >= 0 && cs_cmp_plain_bytes(m);
            if (m >= 0)
                H5Tclose(m);
        }
        return ok;
    }
    default:
        return 0;
    }
}

herr_t cs_cmp_reclaim(hid_t mt, hid_t space, void *buf)
{
#if H5_VERSION_GE(1, 12, 0)
    return H5Treclaim(mt, space, H5P_DEFAULT, buf);
#else
    return H5Dvlen_reclaim(mt, space, H5P_DEFAULT, buf);
#endif
}
