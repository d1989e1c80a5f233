/*
 * bench_memory: this machine's memory limits on one core, the yardstick of the per-link work
 * (bench_perlink). Built, never run by ctest.
 *   latency: a dependent pointer chase over a buffer much larger than the last-level cache
 *            (one random cycle through all of its cache lines: each load's address is the
 *            previous load's value, so no two misses overlap), in ns per access;
 *   random reads: independent loads at hashed places in the same buffer (the addresses are
 *            known ahead, so the core keeps several misses in flight), in ns per access;
 *   stream read: a sequential sum over the buffer (a STREAM-like read), in GB/s.
 * The buffer is taken with 4 KiB pages (MADV_NOHUGEPAGE), as the simulator's arrays are, so the
 * latency includes the page walks of random addresses; the chase is also made with 2 MiB pages
 * (MADV_HUGEPAGE, where the kernel gives them), whose difference is the page walks' share. Times
 * are the thread's CPU time, not the wall clock. Usage: bench_memory [MIB (512)] [ACCESSES (2e7)]
 * [PASSES (5)]
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64 /* bytes of a cache line */

/* The thread's CPU time: a core shared with other processes gives the same figures (their
 * caches and memory traffic still count). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The lines of buf (n of them) linked in one random cycle (Sattolo's shuffle of the order),
 * the first word of each line holding the next line's index. */
static void link_cycle(uint64_t *buf, uint64_t n)
{
    uint64_t *order = malloc(n * sizeof *order);
    if (order == NULL) {
        fprintf(stderr, "bench_memory: out of memory\n");
        exit(1);
    }
    for (uint64_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t s = 12345;
    for (uint64_t i = n - 1; i > 0; i--) {
        s = mix64(s);
        const uint64_t j = s % i; /* j < i: one cycle */
        const uint64_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    const uint64_t w = LINE / sizeof *buf;
    for (uint64_t i = 0; i < n; i++)
        buf[order[i] * w] = order[(i + 1) % n];
    free(order);
}

static double chase(const uint64_t *buf, uint64_t steps, uint64_t *sink)
{
    const uint64_t w = LINE / sizeof *buf;
    uint64_t at = 0;
    const double t0 = now();
    for (uint64_t i = 0; i < steps; i++)
        at = buf[at * w];
    const double dt = now() - t0;
    *sink += at;
    return 1e9 * dt / (double)steps;
}

static double random_reads(const uint64_t *buf, uint64_t words, uint64_t n, uint64_t *sink)
{
    uint64_t sum = 0;
    const double t0 = now();
    for (uint64_t i = 0; i < n; i++)
        sum += buf[mix64(i) % words];
    const double dt = now() - t0;
    *sink += sum;
    return 1e9 * dt / (double)n;
}

static double stream_read(const uint64_t *buf, uint64_t words, int passes, uint64_t *sink)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const double t0 = now();
    for (int p = 0; p < passes; p++)
        for (uint64_t i = 0; i + 3 < words; i += 4) {
            s0 += buf[i];
            s1 += buf[i + 1];
            s2 += buf[i + 2];
            s3 += buf[i + 3];
        }
    const double dt = now() - t0;
    *sink += s0 + s1 + s2 + s3;
    return (double)passes * (double)words * (double)sizeof *buf / dt / 1e9;
}

/* A buffer of `bytes` linked in one random cycle, with 4 KiB pages (huge = 0) or 2 MiB pages
 * where the kernel gives them (MADV_HUGEPAGE); NULL when it cannot be mapped. */
static uint64_t *cycle_buffer(size_t bytes, int huge)
{
    uint64_t *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return NULL;
    madvise(buf, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(buf, 0, bytes);
    link_cycle(buf, bytes / LINE);
    return buf;
}

int main(int argc, char **argv)
{
    const double mib = argc > 1 ? strtod(argv[1], NULL) : 512.0;
    const uint64_t acc = argc > 2 ? (uint64_t)strtod(argv[2], NULL) : 20000000u;
    const int passes = argc > 3 ? atoi(argv[3]) : 5;
    if (mib < 1.0 || acc < 1 || passes < 1) {
        fprintf(stderr, "usage: bench_memory [MIB >= 1] [ACCESSES >= 1] [PASSES >= 1]\n");
        return 2;
    }
    const size_t bytes = (size_t)(mib * 1048576.0) / LINE * LINE;
    const uint64_t words = bytes / sizeof(uint64_t);
    uint64_t sink = 0, *buf = cycle_buffer(bytes, 1);
    if (buf == NULL) {
        fprintf(stderr, "bench_memory: cannot map %.0f MiB\n", mib);
        return 1;
    }
    chase(buf, acc / 10 + 1, &sink);
    const double lat_huge = chase(buf, acc, &sink);
    munmap(buf, bytes);
    if ((buf = cycle_buffer(bytes, 0)) == NULL) {
        fprintf(stderr, "bench_memory: cannot map %.0f MiB\n", mib);
        return 1;
    }
    chase(buf, acc / 10 + 1, &sink); /* warm the page tables' upper levels */
    const double lat = chase(buf, acc, &sink);
    const double rnd = random_reads(buf, words, acc, &sink);
    stream_read(buf, words, 1, &sink);
    const double bw = stream_read(buf, words, passes, &sink);
    printf("bench_memory: buffer %.0f MiB, %llu accesses, %d passes, sink %llu\n",
           (double)bytes / 1048576.0, (unsigned long long)acc, passes,
           (unsigned long long)(sink & 0xff));
    printf("latency (dependent chase)       %8.1f ns/access\n", lat);
    printf("latency, 2 MiB pages            %8.1f ns/access\n", lat_huge);
    printf("random reads (independent)      %8.2f ns/access\n", rnd);
    printf("stream read                     %8.2f GB/s\n", bw);
    munmap(buf, bytes);
    return 0;
}
