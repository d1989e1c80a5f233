/*
 * A program outside crawlsim's tree that uses the installed library through its public headers
 * only (tools/check-install builds it with find_package(crawlsim) and with pkg-config): loads a
 * job file with an override, prints a default, generates the world it describes and reads the
 * file's header back. Usage: mpiexec -n NP consumer GEN_INI OUT.h5
 */
#include <crawlsim/config.h>
#include <crawlsim/core.h>
#include <crawlsim/gen.h>
#include <crawlsim/graphio.h>

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int code = 1;
    if (argc != 3) {
        fprintf(stderr, "usage: consumer GEN_INI OUT.h5\n");
        MPI_Finalize();
        return 2;
    }
    cs_ctx ctx;
    cs_ctx_init(&ctx, MPI_COMM_WORLD, CS_LOG_ERROR);
    static cs_config cfg; /* large: not on the stack */
    const char *const overrides[] = {"gen.pages=2000"};
    cs_graph_header hdr;
    cs_err rc = cs_config_load(&ctx, argv[1], overrides, 1, &cfg);
    if (rc == CS_OK)
        rc = cs_gen_write(&ctx, &cfg, argv[2]);
    if (rc == CS_OK)
        rc = cs_graphio_read_header(&ctx, argv[2], &hdr);
    if (rc != CS_OK) {
        if (ctx.rank == 0)
            fprintf(stderr, "consumer: %s: %s\n", cs_errname(rc), ctx.errmsg);
    } else {
        if (ctx.rank == 0)
            printf("crawl.bandwidth %" PRId64 " (default)\npages %" PRId64 " hosts %" PRId64
                   " links %" PRId64 "\n",
                   cfg.crawl.bandwidth, hdr.n_pages, hdr.n_hosts, hdr.n_links);
        code = 0;
    }
    cs_ctx_fini(&ctx);
    MPI_Finalize();
    return code;
}
