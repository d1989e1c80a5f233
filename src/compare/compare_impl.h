/*
 * compare internals shared by compare.c (walking the files) and compare_values.c (describing and
 * comparing values).
 */
#ifndef CRAWLSIM_COMPARE_IMPL_H
#define CRAWLSIM_COMPARE_IMPL_H

#include "crawlsim/core.h"

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Characters of a string value shown in a difference line. */
#define CS_CMP_SHOW_CHARS 60
/* Room for one formatted value (CS_CMP_SHOW_CHARS escaped characters, quotes, ellipses, bits). */
#define CS_CMP_VALUE_CAP 320

/* How the elements of a dataset or attribute are compared. */
typedef enum vkind { VK_BYTES, VK_FIXSTR, VK_VARSTR } vkind;

/* The values compared so far: how many elements differ, and the first difference. */
typedef struct valcmp {
    int64_t ndiff;
    int64_t first; /* flat (row-major) index */
    char va[CS_CMP_VALUE_CAP], vb[CS_CMP_VALUE_CAP];
    char note[64];
} valcmp;

void cs_cmp_describe_type(hid_t t, char *out, size_t cap);
void cs_cmp_describe_shape(H5S_class_t cls, int nd, const hsize_t *dims, char *out, size_t cap);
void cs_cmp_describe_index(int nd, const hsize_t *dims, int64_t flat, char *out, size_t cap);
void cs_cmp_compare_elems(valcmp *vc, vkind vk, hid_t t, const size_t es[2], const H5T_str_t pad[2],
                          const unsigned char *x, const unsigned char *y, int64_t n, int64_t base);
int cs_cmp_plain_bytes(hid_t t);
herr_t cs_cmp_reclaim(hid_t mt, hid_t space, void *buf);

#endif
