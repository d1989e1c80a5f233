/*
 * rng: what its files share (rng.c, normals_f32.c). Not installed.
 */
#ifndef CRAWLSIM_RNG_IMPL_H
#define CRAWLSIM_RNG_IMPL_H

#include <math.h>
#include <stdint.h>

#define CS_TWO_PI 6.283185307179586476925286766559

/* Box-Muller with the cosine branch only on the words w1 (u1 in (0, 1], under the log) and w2
 * (u2 in [0, 1)): cs_rng_normal's value, in one place for the one-by-one, the batched and the
 * float draws' slow path. */
static inline double cs_box_muller(uint64_t w1, uint64_t w2)
{
    const double u1 = (double)((w1 >> 11) + 1) * 0x1.0p-53;
    const double u2 = (double)(w2 >> 11) * 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(CS_TWO_PI * u2);
}

#endif
