/*
 * config: job files and graph specs (INI, parsed with inih), their defaults and validation, and
 * `--set section.key=value` overrides.
 *
 * One schema table (src/config/schema.c) lists every key with its section, type, default,
 * allowed range and one-line documentation. Parsing, validation, `crawlsim help config` and the
 * job-file reference (docs/reference/config.md) are all generated from it, so they cannot drift
 * apart.
 */
#ifndef CRAWLSIM_CONFIG_H
#define CRAWLSIM_CONFIG_H

#include "crawlsim/core.h"

#include <stdint.h>
#include <stdio.h>

#define CS_CONF_STR 1024

/* [gen]'s web-like structure (docs/guide/web-like.md); the defaults leave the links as they are
 * without it. */
typedef struct cs_gen_web {
    double dangling;         /* share of pages without out-links */
    double unlinked;         /* share of pages no link points to (never a host's first page) */
    double tree_only;        /* share of pages only the directory tree links to */
    double tree_lift;        /* probability that such a page's link comes one level further up */
    int64_t tree_lift_span;  /* a lift stops below a directory spanning more ids (0: the root) */
    int dangling_leaves;     /* only pages without children in their host's tree dangle */
    int64_t tree_branching;  /* directory tree per host, base b of host-local indices; 0: none */
    double tree_up;          /* probability that a page links to its directory (parent) */
    double tree_down;        /* probability that a directory links to a given child */
    double tree_siblings;    /* probability that a page and its next sibling link both ways */
    int64_t template_links;  /* links of a host's template (navigation) to its popular pages */
    double template_share;   /* probability that a page carries its host's template */
    int template_menu;       /* the template is its lead host's first pages (a site's menu) */
    double copy_links;       /* share of a page's drawn links copied from its tree parent's */
    double host_pool;        /* a host's pool of link draws: host_pool x degree_mean slots */
    int64_t community_hosts; /* far links stay in their source's run of this many hosts; 0: no */
    int64_t community_near;  /* links to hosts this near keep their host (0: the run is closed) */
    double near_share;       /* share of drawn in-host links placed near their source */
    double near_alpha;       /* density exponent of those links' id gap (power law from 1) */
    double near_forward;     /* probability that a near link goes forward (0.5: the old bit) */
    double near_snap;        /* probability that a near link lands on the directory of its gap */
    double host_cross;       /* probability that an in-host link goes to a neighbouring host */
    double link_pairs;       /* probability that pages p and p XOR 2^k link both ways, per level */
    int64_t pair_levels;     /* the levels k of link_pairs: 0 .. pair_levels - 1 */
    double popular_degree;   /* probability that a page's out-degree follows its popularity */
    double host_degree;      /* share of the out-degree's normal score a page's host sets */
    double host_dangling;    /* share of the dangling flag's normal score a page's host sets */
    double home_links;       /* probability that a drawn link goes to a popular host's home page */
    double site_hosts;       /* mean hosts of a site, a run of hosts sharing its first's template */
    double in_hosts;         /* share of hosts no other host links to (bow-tie IN) */
    double out_hosts;        /* share of hosts whose pages link only inside it (bow-tie OUT) */
    int closed_own;          /* such a host's links drawn as its own links, not uniformly */
    double isolated_hosts;   /* share of hosts both (disconnected: the bow-tie's rest) */
} cs_gen_web;

/* [gen] term_normals: the term vectors' normal draws, Box-Muller (the default: the worlds of
 * earlier versions) or the ziggurat (another world of the same law, far fewer instructions) */
enum cs_term_normals { CS_TERMS_BOX_MULLER = 0, CS_TERMS_ZIGGURAT = 1 };

/* [gen]: the synthetic web model (DESIGN.md "The world"; docs in schema.c). */
typedef struct cs_gen_config {
    int64_t pages;
    int64_t seed;
    double host_size_mean;
    double host_size_alpha;
    int64_t host_size_max;
    int64_t topics;
    double topic_skew;
    int64_t target_topic;
    double host_topic_purity;
    double degree_mean;
    double degree_alpha;
    int64_t degree_max;
    double degree_sigma; /* > 0: a log-normal out-degree of this sigma, not the power law */
    int degree_total;    /* the drawn out-degree counts the page's structural links */
    double p_host;
    double p_topic;
    double host_popularity_skew;
    double page_popularity_skew;
    double hub_fraction;
    double hub_degree_factor;
    double hub_focus;
    double topic_spread;
    double relevance_noise;
    double relevance_threshold;
    int64_t term_dim;
    double term_noise;
    double anchor_noise;
    int term_normals; /* how the term vectors' noise is drawn (enum cs_term_normals) */
    double delta_median;
    double delta_host_sigma;
    double delta_page_sigma;
    double news_fraction;
    double news_factor;
    double mu_alpha;
    double observable_fraction;
    cs_gen_web web;  /* web-like structure; the defaults leave the links as above */
    int materialize; /* a run builds the owned pages before the crawl (else: on demand) */
} cs_gen_config;

enum cs_edge_format {
    CS_EDGES_PAIRS = 0,
    CS_EDGES_ADJACENCY = 1,
    CS_EDGES_ADJACENCY_INDEXED = 2,
    CS_EDGES_SUCCESSORS = 3, /* line i: page i's successors, no count (WebGraph's text export) */
    CS_EDGES_ASCIIGRAPH = 4, /* WebGraph ASCIIGraph: the node count, then CS_EDGES_SUCCESSORS */
    CS_EDGES_BVGRAPH = 5,    /* WebGraph's compressed BVGraph (.graph + .properties) */
    CS_EDGES_GML = 6         /* GML: nodes with attributes, edges */
};
enum cs_new_ids { CS_NEW_IDS_ERROR = 0, CS_NEW_IDS_ALLOW = 1 };
/* [import] host_names: as written, or reversed ("com.example.www", Common Crawl's graphs) */
enum cs_host_names { CS_HOST_NAMES_AS_IS = 0, CS_HOST_NAMES_REVERSED = 1 };
/* [import] page_ids: from page_id_field, or the data line's number (LAW's .urls files) */
enum cs_page_ids { CS_PAGE_IDS_FIELD = 0, CS_PAGE_IDS_LINE = 1 };
enum cs_node_ids { CS_IDS_INTEGER = 0, CS_IDS_NAME = 1 };
enum cs_host_source {
    CS_HOSTS_URL = 0,
    CS_HOSTS_FIELD = 1,
    CS_HOSTS_NODE = 2,
    CS_HOSTS_SINGLE = 3,
    CS_HOSTS_PER_PAGE = 4,
    CS_HOSTS_BLOCKS = 5
};
enum cs_page_features { CS_FEAT_NONE = 0, CS_FEAT_DENSE_BINARY = 1, CS_FEAT_SPARSE = 2 };

/* Field positions in import tables: 0.. = position, -1 = last field, -2 = none. */
#define CS_FIELD_LAST (-1)
#define CS_FIELD_NONE (-2)

/* [import]: how `crawlsim import` reads a real graph (docs in schema.c). */
typedef struct cs_import_config {
    char edges[CS_CONF_STR];
    int edge_format;
    char separators[64];
    char comment[16];
    int64_t skip_lines;
    int64_t src_field;
    int64_t dst_field;
    int64_t weight_field;
    int reverse;
    int node_ids;
    int64_t id_base;
    int self_loops;
    int64_t node_count;
    int new_ids;
    char gml_label[64];
    char gml_url[64];
    char pages[CS_CONF_STR];
    char page_list[CS_CONF_STR];
    char page_separators[64];
    int64_t page_skip_lines;
    int64_t page_id_field;
    int64_t page_url_field;
    int64_t page_host_field;
    int64_t page_label_field;
    int64_t page_relevance_field;
    int page_features;
    int64_t page_features_first;
    int64_t page_features_count;
    int64_t label_depth;
    int hosts;
    char host_spec[CS_CONF_STR];
    int host_names;
    int page_ids;
    int lowercase_names;
    char target_label[256];
} cs_import_config;

enum cs_part_objective { CS_PART_OBJ_CUT = 0, CS_PART_OBJ_VOLUME = 1 };
enum cs_part_vweight { CS_PART_VW_PAGES = 0, CS_PART_VW_LINKS = 1 };

/* [partition]: how `crawlsim partition` assigns pages to ranks (docs in schema.c). method is a
 * cs_part_method (partition.h), objective a cs_part_objective, vertex_weight a cs_part_vweight. */
typedef struct cs_partition_config {
    int method;
    int64_t ufactor;
    int64_t seed;
    int objective;
    int vertex_weight;
    int64_t sample;       /* run.partition_method = metis-sampled: pages per host (0: all) */
    int balance_relevant; /* metis-sampled: balance the relevant pages too (METIS ncon = 2) */
} cs_partition_config;

/* run.seed_pages: where a crawl starts; run.relevance: what counts as relevant. */
enum cs_seed_pages {
    CS_SEEDS_RELEVANT = 0,
    CS_SEEDS_RANDOM = 1,
    CS_SEEDS_IN_DEGREE = 2,
    CS_SEEDS_FILE = 3
};
enum cs_run_relevance { CS_RELEVANCE_GRAPH = 0, CS_RELEVANCE_NONE = 1 };
enum cs_run_partition {
    CS_RUN_PART_HOST_HASH = 0,
    CS_RUN_PART_BLOCK = 1,
    CS_RUN_PART_FILE = 2,
    CS_RUN_PART_METIS_SAMPLED = 3
};

/* [run]: what `crawlsim run` crawls and for how long (docs in schema.c). policy is a
 * cs_run_policy (the discover registry, discover.h), partition_method a cs_run_partition. */
typedef struct cs_run_config {
    char graph[CS_CONF_STR];
    char partition[CS_CONF_STR];
    int partition_method;
    char output[CS_CONF_STR];
    int policy;
    int64_t seed;
    int64_t ticks;
    int64_t pages;
    int64_t tasks;
    int64_t seeds;
    int seed_pages;
    char seed_file[CS_CONF_STR];
    int relevance;
    int64_t record_every;
    int64_t progress;
    int trace;
    char checkpoint[CS_CONF_STR];
    int64_t checkpoint_every;
} cs_run_config;

enum cs_budget_mode { CS_BUDGET_GLOBAL = 0, CS_BUDGET_PROPORTIONAL = 1, CS_BUDGET_FIXED = 2 };
/* crawl.weight_sync: how the ranks' learners are combined every sync_every ticks. */
enum cs_weight_sync { CS_WSYNC_SUM = 0, CS_WSYNC_AVERAGE = 1 };

/* crawl.visited: where the visited set and the evidence rows live (docs/developer/memory.md). */
enum cs_visited_layout { CS_VISITED_AUTO = 0, CS_VISITED_REPLICATED = 1, CS_VISITED_OWNED = 2 };

/* [crawl]: bandwidth, budgets, frontier and synchronisation (docs in schema.c). */
typedef struct cs_crawl_config {
    int64_t bandwidth;
    int budget;
    int64_t rebalance_every;
    int64_t exchange_every;
    int exchange; /* cs_exchange_method (comm.h) */
    int visited;  /* enum cs_visited_layout */
    int64_t sync_every;
    int weight_sync;
    int64_t frontier_capacity;
    int64_t host_rate;
} cs_crawl_config;

enum cs_sarsa_mode { CS_SARSA_SYNCHRONOUS = 0, CS_SARSA_ASYNCHRONOUS = 1, CS_SARSA_MODERATED = 2 };
/* sarsa.step_rule: how the step per update follows the synchronisation (cs_sarsa_step). */
enum cs_step_rule { CS_STEP_FIXED = 0, CS_STEP_WINDOW = 1, CS_STEP_RANKS = 2 };
enum cs_reward_kind { CS_REWARD_PAPER = 0, CS_REWARD_BINARY = 1 };

/* [sarsa]: Han et al.'s focused crawler (docs in schema.c). */
typedef struct cs_sarsa_config {
    int mode;
    char alpha[32]; /* "auto" or a number in [0, 1]: cs_sarsa_alpha gives the step */
    int step_rule;  /* cs_step_rule: cs_sarsa_step scales alpha with it */
    double gamma;
    double epsilon;
    double beta;
    double delta1;
    double delta2;
    int64_t categories;
    int reward;
    double reward_relevant;
    double reward_high;
    double reward_mid;
    double reward_other;
    double high_threshold;
    double mid_threshold;
} cs_sarsa_config;

/* [tres]: Kontogiannis et al.'s TRES, its baselines and the per-host MAX cap (docs in
 * schema.c). max_per_host: "inf", "adaptive" or a positive integer (cs_tres_max_parse). */
typedef struct cs_tres_config {
    int64_t hidden1, hidden2;
    double lr;
    double gamma;
    int64_t batch;
    int64_t train_every;
    int64_t replay;
    int64_t target_every;
    int64_t warmup;
    double epsilon;
    char max_per_host[32];
    int host_features;
    int64_t min_samples;
    int64_t max_depth;
    int64_t max_next;
} cs_tres_config;

/* max_per_host parsed: CS_TRES_MAX_INF (no cap), CS_TRES_MAX_ADAPTIVE (5 -> 2) or the cap. */
#define CS_TRES_MAX_INF 0
#define CS_TRES_MAX_ADAPTIVE (-1)
/* Local. Parses tres.max_per_host into *cap; returns 0 if it is not inf, adaptive or an
 * integer in [1, 2^31 - 1]. */
CS_API int cs_tres_max_parse(const char *s, int64_t *cap);

/* [refresh]: re-crawls of the fetched pages sharing the budget with discovery (docs in
 * schema.c). policy: 0 = none, else 1 + the index in the choices after "none" (the recrawl
 * registry's names, recrawl.h); fraction: a number in (0, 1] or "adaptive"
 * (cs_refresh_fraction_parse). */
typedef struct cs_refresh_config {
    int policy;
    char fraction[32];
    double tick_time;
    int64_t sync_every;
    double split_start, split_step, split_min, split_max;
    double epsilon;
    double learn_guess;
    int64_t learn_suffix;
    double adapt_shrink, adapt_grow, adapt_init, adapt_min, adapt_max;
    int group_by; /* cs_refresh_group_by */
    int64_t groups;
    double whittle_decay;
} cs_refresh_config;

enum cs_refresh_group_by { CS_GROUP_RATE_CLASS = 0, CS_GROUP_HOST = 1 };

/* sarsa.alpha = auto: the paper's step (Han et al.: 0.001, one fetch at a time), and under
 * crawl.weight_sync = sum at most CS_SARSA_ALPHA_AUTO_STEP / crawl.bandwidth, because a tick then
 * applies its B updates, all computed from the weights at its start, together
 * (docs/guide/synchronisation.md "Exact synchronisation": alpha x B = 0.01 learned best of those
 * measured; 1 collapses). */
#define CS_SARSA_ALPHA_PAPER 0.001
#define CS_SARSA_ALPHA_AUTO_STEP 0.01
/* Local. Parses sarsa.alpha into *alpha (a negative value for auto); returns 0 if it is neither
 * auto nor a number in [0, 1]. */
CS_API int cs_sarsa_alpha_parse(const char *s, double *alpha);

/* refresh.fraction parsed: the fraction, or CS_REFRESH_SPLIT_ADAPTIVE. */
#define CS_REFRESH_SPLIT_ADAPTIVE (-1.0)
/* Local. Parses refresh.fraction into *f; returns 0 if it is neither "adaptive" nor a number in
 * (0, 1]. */
CS_API int cs_refresh_fraction_parse(const char *s, double *f);
enum cs_bandit_experiment { CS_BANDIT_EPHEMERAL = 0, CS_BANDIT_FRESHNESS = 1 };

/* [bandit]: `crawlsim bandit`, the restless-bandit experiments of the Whittle and DRL papers
 * (docs in schema.c; bandit.h). Per-arm values are comma-separated lists. */
typedef struct cs_bandit_config {
    int experiment; /* cs_bandit_experiment */
    char policies[256];
    int64_t runs, horizon, seed, window;
    char output[CS_CONF_STR];
    /* ephemeral content (Whittle paper) */
    char arrival[CS_CONF_STR], decay[CS_CONF_STR], lifetime[CS_CONF_STR], cost[CS_CONF_STR];
    int64_t crawlers;
    double learn_kappa, learn_gamma, learn_delta, learn_epsilon;
    double learn_a_c, learn_a_period, learn_b_c, learn_b_period;
    int learn_inverse;  /* cs_lspe_inverse */
    int learn_features; /* 0 quadratic, 1 linear */
    /* binary freshness (DRL paper) */
    char group_sizes[CS_CONF_STR], rates[CS_CONF_STR], importance[CS_CONF_STR];
    double slot;
    int64_t hidden1, hidden2;
    double gamma, eps_start, eps_end;
    int64_t eps_steps;
    double lr, lr_decay, noise;
    int64_t batch, replay;
    double x_scale;
} cs_bandit_config;

typedef struct cs_config {
    cs_run_config run;
    cs_crawl_config crawl;
    cs_sarsa_config sarsa;
    cs_tres_config tres;
    cs_refresh_config refresh;
    cs_bandit_config bandit;
    cs_gen_config gen;
    cs_import_config import;
    cs_partition_config partition;
    char world[CS_CONF_STR]; /* gen.world: the spec whose [gen] keys this file's start from */
    char path[CS_CONF_STR];  /* the file it came from, "" for defaults only */
    char dir[CS_CONF_STR];   /* its directory, for relative paths inside it ("." if none) */
} cs_config;

typedef enum cs_conf_type {
    CS_CONF_INT,    /* int64_t */
    CS_CONF_DOUBLE, /* double */
    CS_CONF_BOOL,   /* int, 0/1; true/false/yes/no/on/off/1/0 */
    CS_CONF_STRING, /* char[size] */
    CS_CONF_ENUM    /* int index into choices "a|b|c" */
} cs_conf_type;

typedef struct cs_conf_entry {
    const char *section;
    const char *key;
    cs_conf_type type;
    const char *def;     /* default, as written in a file */
    double min, max;     /* inclusive range for INT and DOUBLE */
    const char *choices; /* ENUM: "a|b|c" */
    size_t offset;       /* into cs_config */
    size_t size;         /* STRING: capacity of the char array */
    const char *doc;
} cs_conf_entry;

/* Local. The schema table and its length. */
CS_API const cs_conf_entry *cs_config_schema(size_t *n);

/* Local. Every key to its default. */
CS_API void cs_config_defaults(cs_config *cfg);

/*
 * Local. Parses INI text (named `name` in messages) into cfg on top of what cfg holds.
 * Unknown sections or keys: CS_ERR_CONFIG naming the nearest valid key; bad type or range:
 * CS_ERR_CONFIG naming name:line.
 */
CS_API cs_err cs_config_parse_string(cs_ctx *ctx, const char *text, const char *name,
                                     cs_config *cfg);

/* Local. Applies one "section.key=value" assignment; `origin` names it in messages. */
CS_API cs_err cs_config_set(cs_ctx *ctx, cs_config *cfg, const char *assignment,
                            const char *origin);

/* Local. Checks relations between keys (e.g. p_host + p_topic <= 1). */
CS_API cs_err cs_config_validate(cs_ctx *ctx, const cs_config *cfg);

/* Local. The SARSA step of a validated configuration: sarsa.alpha, or auto resolved. */
CS_API double cs_sarsa_alpha(const cs_config *cfg);

/* Local. The SARSA step per update on `ranks` ranks under sarsa.step_rule, from
 * a = cs_sarsa_alpha(cfg): fixed, a; window, at most CS_SARSA_ALPHA_AUTO_STEP / U, where U is
 * the updates one synchronisation window applies to the model (crawl.sync_every x bandwidth
 * under sum, divided by the rank count under average, whose mean moves the model by 1/P of the
 * ranks' steps; sync_every = 0: the window is the task, run.pages fetches), so that the step
 * per window, alpha x K x B (/ P), is bounded as auto bounds alpha x B; ranks, a x P under
 * average (at most 1), a under sum. */
CS_API double cs_sarsa_step(const cs_config *cfg, int ranks);

/*
 * Collective(ctx->comm). Logically collective: path, overrides. Defaults, then the file (read
 * on rank 0 and broadcast; path NULL = defaults only), then the overrides in order, then
 * validation. Every rank returns the same code and the same cfg. When the keys name a world
 * (gen.world), that spec's [gen] keys replace the defaults and the file's keys and the
 * overrides are applied again over them (cs_config_parse_string alone does not read it).
 */
CS_API cs_err cs_config_load(cs_ctx *ctx, const char *path, const char *const *overrides,
                             int n_overrides, cs_config *cfg);

/* Local. Writes the fully resolved config as INI text (every key of the given section, or of
 * all sections when section is NULL). Returns a malloc'd string in *text (caller frees). */
CS_API cs_err cs_config_to_ini(cs_ctx *ctx, const cs_config *cfg, const char *section, char **text);

/* Local. The option reference: plain text for `crawlsim help config`, or docs/reference/config.md's
 * Markdown tables when markdown != 0. section NULL = all sections. */
CS_API void cs_config_print_help(FILE *out, const char *section, int markdown);

/* Local. Resolves a path from a config file relative to that file's directory into out. */
CS_API void cs_config_resolve_path(const cs_config *cfg, const char *p, char *out, size_t size);

/* Local. The default results file of a job file: results/<its name without .ini>.h5, relative
 * to the current directory. */
CS_API void cs_config_default_output(const char *job, char *out, size_t size);

/* Local. Levenshtein distance, for "did you mean" suggestions. */
CS_API size_t cs_edit_distance(const char *a, const char *b);

#endif
