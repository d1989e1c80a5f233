/*
 * bench_pingpong: the round trip of one cache line between two threads pinned to two CPUs (0
 * and 1 by default): what a rank's threads pay for every frontier entry, hash slot or record
 * that one thread writes and the other then reads (docs/performance.md, issue 21). On this
 * project's 2-vCPU test machine it is 80-140 ns at some times and 360-790 ns at others, for
 * seconds to minutes (the host's doing, which the guest cannot see); tests/bench/threads.sh can
 * print it before each run.
 * Usage: bench_pingpong [ROUND_TRIPS (200000)] [CPU_A (0)] [CPU_B (1)]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) atomic_long line;
static long trips = 200000;
static int cpu_a = 0, cpu_b = 1;

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* The other side: answers each odd value with the next even one. */
static void *pong(void *arg)
{
    (void)arg;
    if (pin(cpu_b) != 0)
        fprintf(stderr, "bench_pingpong: cannot pin to CPU %d: unpinned\n", cpu_b);
    for (long i = 0; i < trips; i++) {
        while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&line, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        trips = atol(argv[1]);
    if (argc > 2)
        cpu_a = atoi(argv[2]);
    if (argc > 3)
        cpu_b = atoi(argv[3]);
    if (trips < 1) {
        fprintf(stderr, "usage: bench_pingpong [ROUND_TRIPS] [CPU_A] [CPU_B]\n");
        return 2;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, pong, NULL) != 0) {
        fprintf(stderr, "bench_pingpong: cannot start a thread\n");
        return 1;
    }
    if (pin(cpu_a) != 0)
        fprintf(stderr, "bench_pingpong: cannot pin to CPU %d: unpinned\n", cpu_a);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < trips; i++) {
        atomic_store_explicit(&line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 2)
            ;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(t, NULL);
    const double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    printf("round trip %.1f ns (CPUs %d and %d, %ld round trips)\n", s / (double)trips * 1e9, cpu_a,
           cpu_b, trips);
    return 0;
}
