/*
 * stats_report: the statistics as a readable report and as a table (TSV), one row per figure,
 * in one list of rows so that both say the same.
 */
#include "stats_impl.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* One row of the table: its key, its label in the report, whether it is a share (printed in %). */
typedef struct row {
    const char *key, *label;
    int pct;
    cs_stats_est e;
} row;

/* Local. The rows of the first 1 % fetches by the fetched page's in-degree, per order, after
 * the n rows already in r (at most cap in all); returns the new count. */
static int in_class_rows(const cs_stats *s, row *r, int n, int cap)
{
    static const char *const key[ST_ORDERS][2][CS_STATS_IN_CLASSES] = {
        {{"bfs.fetch_in1", "bfs.fetch_in2", "bfs.fetch_in10", "bfs.fetch_in100"},
         {"bfs.new_in1", "bfs.new_in2", "bfs.new_in10", "bfs.new_in100"}},
        {{"indeg.fetch_in1", "indeg.fetch_in2", "indeg.fetch_in10", "indeg.fetch_in100"},
         {"indeg.new_in1", "indeg.new_in2", "indeg.new_in10", "indeg.new_in100"}},
        {{"random.fetch_in1", "random.fetch_in2", "random.fetch_in10", "random.fetch_in100"},
         {"random.new_in1", "random.new_in2", "random.new_in10", "random.new_in100"}}};
    static const char *const label[ST_ORDERS][2][CS_STATS_IN_CLASSES] = {
        {{"BFS: first 1 % at pages of <= 1 in-link", "BFS: first 1 % at pages of 2-9 in-links",
          "BFS: first 1 % at pages of 10-99 in-links", "BFS: first 1 % at pages of >= 100"},
         {"BFS: new per fetch, <= 1 in-link", "BFS: new per fetch, 2-9 in-links",
          "BFS: new per fetch, 10-99 in-links", "BFS: new per fetch, >= 100 in-links"}},
        {{"in-degree first: first 1 % at <= 1 in-link", "in-degree first: first 1 % at 2-9",
          "in-degree first: first 1 % at 10-99", "in-degree first: first 1 % at >= 100"},
         {"in-degree first: new per fetch, <= 1", "in-degree first: new per fetch, 2-9",
          "in-degree first: new per fetch, 10-99", "in-degree first: new per fetch, >= 100"}},
        {{"random: first 1 % at pages of <= 1 in-link", "random: first 1 % at pages of 2-9",
          "random: first 1 % at pages of 10-99", "random: first 1 % at pages of >= 100"},
         {"random: new per fetch, <= 1 in-link", "random: new per fetch, 2-9 in-links",
          "random: new per fetch, 10-99 in-links", "random: new per fetch, >= 100 in-links"}}};
    const cs_stats_bfs *d[ST_ORDERS] = {&s->bfs, &s->indeg, &s->rnd};
    for (int j = 0; j < ST_ORDERS; j++)
        for (int w = 0; w < 2; w++)
            for (int c = 0; c < CS_STATS_IN_CLASSES && n < cap; c++) {
                const row x = {key[j][w][c], label[j][w][c], w == 0,
                               w == 0 ? d[j]->by_in[c] : d[j]->by_in_new[c]};
                r[n++] = x;
            }
    return n;
}

/* Local. The rows of s into r (at most cap); returns their number. */
static int rows_of(const cs_stats *s, row *r, int cap)
{
    const row all[] = {
        {"out.mean", "out-degree mean", 0, s->out.mean},
        {"out.median", "out-degree median", 0, s->out.median},
        {"out.max", "out-degree max", 0, s->out.max},
        {"out.zero", "pages without out-links", 1, s->out.zero},
        {"out.target", "out-degree of a link's target (mean)", 0, s->links.target_out},
        {"out.between_hosts", "log out-degree's variance between hosts (share)", 0, s->out.between},
        {"out.zero_between_hosts", "variance of having no out-links between hosts (share)", 0,
         s->out.zero_between},
        {"in.mean", "in-degree mean", 0, s->in.mean},
        {"in.median", "in-degree median", 0, s->in.median},
        {"in.max", "in-degree max", 0, s->in.max},
        {"in.zero", "pages without in-links", 1, s->in.zero},
        {"in.one", "pages with one in-link", 1, s->in.one},
        {"in.two", "pages with two in-links", 1, s->in.two},
        {"in.few", "pages with 3 to 9 in-links", 1, s->in.few},
        {"in.ten", "pages with 10 or more in-links", 1, s->in.ten},
        {"in.top1", "links into the 1 % most-linked pages", 1, s->links.top1_in},
        {"in.club", "links of the 1 % most-linked pages to them", 1, s->links.top1_club},
        {"leaf.top1", "links of pages with one in-link into the 1 % most-linked", 1,
         s->links.leaf_top1},
        {"lone.parents", "pages linking to a page no other page links to", 1,
         s->links.lone_parents},
        {"lone.top1", "of those lone pages, listed by the 1 % of pages listing most", 1,
         s->links.lone_top1},
        {"lone.parent_in", "in-degree of a lone page's parent (median)", 0,
         s->links.lone_parent_in},
        {"in.alpha", "in-degree tail exponent (x_min by KS)", 0, s->in.alpha},
        {"in.xmin", "in-degree tail x_min", 0,
         s->in.tail > 0 ? st_exact((double)s->in.xmin) : st_none()},
        {"in.alpha20", "in-degree tail exponent (x_min = 20)", 0, s->in.alpha20},
        {"host.mean", "host size mean", 0, s->host.mean},
        {"host.median", "host size median", 0, s->host.median},
        {"host.max", "host size max", 0, s->host.max},
        {"gap4", "links with |id gap| < 2^4", 1, s->links.gap4},
        {"gap8", "links with |id gap| < 2^8", 1, s->links.gap8},
        {"gap12", "links with |id gap| < 2^12", 1, s->links.gap12},
        {"forward8", "forward links among 0 < |gap| < 2^8", 1, s->links.forward8},
        {"block16.repeat", "links repeating a target of their 16-id block", 1,
         s->links.block_repeat[0]},
        {"block256.repeat", "links repeating a target of their 256-id block", 1,
         s->links.block_repeat[1]},
        {"block4096.repeat", "links repeating a target of their 4096-id block", 1,
         s->links.block_repeat[2]},
        {"within_host", "links within host", 1, s->links.within_host},
        {"reciprocity", "reciprocity", 0, s->links.reciprocity},
        {"clustering", "average clustering (undirected)", 0, s->shape.clustering},
        {"overlap", "link overlap: the target's out-links its source links to", 0,
         s->shape.overlap},
        {"bowtie.scc", "bow-tie: largest SCC", 1, s->shape.scc},
        {"bowtie.in", "bow-tie: IN", 1, s->shape.in},
        {"bowtie.out", "bow-tie: OUT", 1, s->shape.out},
        {"bowtie.rest", "bow-tie: tendrils and the rest", 1, s->shape.rest},
        {"dist.mean", "directed distance mean", 0, s->shape.dist_mean},
        {"dist.eff90", "90 % effective diameter", 0, s->shape.dist_eff90},
        {"dist.reach", "pages a source reaches", 1, s->shape.reach},
        {"topic.same", "P(same topic | link)", 0, s->links.same_topic},
        {"topic.base", "topic base rate", 0, s->links.topic_base},
        {"topic.lift", "topical lift", 0, s->links.topic_lift},
        {"rel.link", "P(relevant | link from relevant)", 0, s->links.rel_link},
        {"rel.base", "relevant pages", 0, s->links.rel_base},
        {"bfs.known1", "BFS: pages known after fetching 1 %", 1, s->bfs.known1},
        {"bfs.known10", "BFS: pages known after fetching 10 %", 1, s->bfs.known10},
        {"bfs.empty10", "BFS: first 10 % fetches finding nothing new", 1, s->bfs.empty10},
        {"indeg.known1", "in-degree first: known after fetching 1 %", 1, s->indeg.known1},
        {"indeg.known10", "in-degree first: known after fetching 10 %", 1, s->indeg.known10},
        {"indeg.empty10", "in-degree first: first 10 % fetches, none new", 1, s->indeg.empty10},
        {"random.known1", "random: pages known after fetching 1 %", 1, s->rnd.known1},
        {"random.known10", "random: pages known after fetching 10 %", 1, s->rnd.known10},
        {"random.empty10", "random: first 10 % fetches, none new", 1, s->rnd.empty10},
        {"out.rich", "link-rich: out-degree at least (90th pctl)", 0, s->out.rich},
        {"bfs.rich1", "BFS: first 1 % fetches at link-rich pages", 1, s->bfs.rich1},
        {"bfs.rich_new1", "BFS: new pages per such fetch", 0, s->bfs.rich_new1},
        {"bfs.other_new1", "BFS: new pages per other fetch", 0, s->bfs.other_new1},
        {"indeg.rich1", "in-degree first: first 1 % at link-rich pages", 1, s->indeg.rich1},
        {"indeg.rich_new1", "in-degree first: new pages per such fetch", 0, s->indeg.rich_new1},
        {"indeg.other_new1", "in-degree first: new pages per other fetch", 0, s->indeg.other_new1},
        {"random.rich1", "random: first 1 % fetches at link-rich pages", 1, s->rnd.rich1},
        {"random.rich_new1", "random: new pages per such fetch", 0, s->rnd.rich_new1},
        {"random.other_new1", "random: new pages per other fetch", 0, s->rnd.other_new1},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < cap; i++)
        r[n++] = all[i];
    return in_class_rows(s, r, n, cap);
}

#define MAX_ROWS 104

/* Local. Whether a row is a discovery crawl's (its lo and hi are the range over seeds). */
static int is_crawl(const char *key)
{
    return strncmp(key, "bfs.", 4) == 0 || strncmp(key, "indeg.", 6) == 0 ||
           strncmp(key, "random.", 7) == 0;
}

void cs_stats_print(FILE *f, const cs_stats *s)
{
    row r[MAX_ROWS];
    const int n = rows_of(s, r, MAX_ROWS);
    fprintf(f, "pages %lld, links ", (long long)s->n_pages);
    if (s->n_links >= 0)
        fprintf(f, "%lld", (long long)s->n_links);
    else
        fprintf(f, "unknown (sampled)");
    fprintf(f, ", hosts %lld, topics %d (%d with pages)\n", (long long)s->n_hosts, (int)s->n_topics,
            (int)s->topics_used);
    if (s->sampled)
        fprintf(f, "estimated from a uniform sample of the spec's pages; rows that need "
                   "in-links or the whole graph are not available by sampling\n");
    for (int i = 0; i < n; i++) {
        const cs_stats_est *e = &r[i].e;
        const double k = r[i].pct ? 100.0 : 1.0;
        fprintf(f, "%-46s ", r[i].label);
        if (isnan(e->value)) {
            fprintf(f, "-\n");
            continue;
        }
        fprintf(f, "%.4g%s", k * e->value, r[i].pct ? " %" : "");
        if (e->n == 0) {
            fprintf(f, " (exact)\n");
            continue;
        }
        if (isnan(e->hi))
            fprintf(f, " (at least; sample of %lld)\n", (long long)e->n);
        else
            fprintf(f, " [%.4g, %.4g] (%s %lld)\n", k * e->lo, k * e->hi,
                    is_crawl(r[i].key) ? "range over seeds" : "95 %, sample", (long long)e->n);
    }
    if (s->bfs.seeds > 0) {
        fprintf(f, "BFS seeds (pages in the largest SCC):");
        for (int b = 0; b < s->bfs.seeds; b++)
            fprintf(f, " %lld (%lld fetches)", (long long)s->bfs.seed_page[b],
                    (long long)s->bfs.fetched[b]);
        fprintf(f, "\n");
    }
    fprintf(f, "computed in %.2f s on %d rank%s\n", s->seconds, s->n_ranks,
            s->n_ranks == 1 ? "" : "s");
}

/* Local. A value for the table: %.17g, or "nan". */
static void num(FILE *f, double x)
{
    if (isnan(x))
        fprintf(f, "\tnan");
    else
        fprintf(f, "\t%.17g", x);
}

int cs_stats_write_tsv(FILE *f, const cs_stats *s)
{
    row r[MAX_ROWS];
    const int n = rows_of(s, r, MAX_ROWS);
    fprintf(f, "statistic\tvalue\tlo\thi\tn\n");
    const char *head[5] = {"pages", "links", "hosts", "topics", "topics_used"};
    const double hv[5] = {(double)s->n_pages, s->n_links >= 0 ? (double)s->n_links : (double)NAN,
                          (double)s->n_hosts, (double)s->n_topics, (double)s->topics_used};
    for (int i = 0; i < 5; i++) {
        fprintf(f, "%s", head[i]);
        num(f, hv[i]);
        num(f, hv[i]);
        num(f, hv[i]);
        fprintf(f, "\t0\n");
    }
    fprintf(f, "sampled\t%d\t%d\t%d\t0\n", s->sampled, s->sampled, s->sampled);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", r[i].key);
        num(f, r[i].e.value);
        num(f, r[i].e.lo);
        num(f, r[i].e.hi);
        fprintf(f, "\t%lld\n", (long long)r[i].e.n);
    }
    const cs_stats_bfs *d[3] = {&s->bfs, &s->indeg, &s->rnd};
    const char *prefix[3] = {"", "indeg.", "random."};
    for (int j = 0; j < 3; j++)
        for (int b = 0; b < d[j]->seeds; b++)
            for (int k = 0; k < CS_STATS_CURVE; k++) {
                const double x = pow(10.0, -4.0 + (double)k / 10.0);
                fprintf(f, "%scurve.%d.%d\t%.17g\t%.17g\t%.17g\t%lld\n", prefix[j], b, k,
                        d[j]->curve[b][k], x, x, (long long)d[j]->seed_page[b]);
            }
    return ferror(f) ? -1 : 0;
}
