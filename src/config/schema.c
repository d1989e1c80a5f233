/*
 * config schema: every key of every section, in one table. Parsing, validation, defaults,
 * `crawlsim help config` and the job-file reference (docs/reference/config.md) are generated from
 * this table. Adding a key is adding a line here and a member to cs_config.
 */
#include "crawlsim/config.h"

#include <float.h>
#include <stddef.h>

#define G(k) offsetof(cs_config, gen.k)
#define I(k) offsetof(cs_config, import.k)
#define P(k) offsetof(cs_config, partition.k)
#define SZ(k) sizeof(((cs_config *)0)->import.k)
#define R(k) offsetof(cs_config, run.k)
#define RSZ(k) sizeof(((cs_config *)0)->run.k)
#define C(k) offsetof(cs_config, crawl.k)
#define S(k) offsetof(cs_config, sarsa.k)
#define T(k) offsetof(cs_config, tres.k)
#define TSZ(k) sizeof(((cs_config *)0)->tres.k)
#define SSZ(k) sizeof(((cs_config *)0)->sarsa.k)
#define F(k) offsetof(cs_config, refresh.k)
#define FSZ(k) sizeof(((cs_config *)0)->refresh.k)
#define B(k) offsetof(cs_config, bandit.k)
#define BSZ(k) sizeof(((cs_config *)0)->bandit.k)
#define BIG 1e18

/* clang-format off */
/* The policy keys' choices and help, made from the registries (one line per policy there). The
 * choices lists start with a '|' that the schema skips. */
static const char discover_choices[] =
#define CS_DISCOVER_POLICY(id, nm, sum) "|" nm
#include "config/registry_discover.def"
#undef CS_DISCOVER_POLICY
    ;
static const char discover_doc[] = "focused-crawl policy"
#define CS_DISCOVER_POLICY(id, nm, sum) "; " nm ": " sum
#include "config/registry_discover.def"
#undef CS_DISCOVER_POLICY
    ;

static const char recrawl_choices[] = "none"
#define CS_RECRAWL_POLICY(id, nm, sum) "|" nm
#include "config/registry_recrawl.def"
#undef CS_RECRAWL_POLICY
#define CS_BANDIT_POLICY(id, nm, rn, sum) "|" rn
#define CS_BANDIT_ONLY(id, nm)
#include "config/registry_bandit.def"
#undef CS_BANDIT_POLICY
#undef CS_BANDIT_ONLY
    ;
static const char recrawl_doc[] =
    "re-crawl policy of the fetched pages (docs/guide/refresh.md); none: discovery only, the run is "
    "exactly as without [refresh]. Every fetched page joins its rank's cache at its first fetch. "
    "bandit-*: the restless-bandit policies over groups of cached pages (group_by), one slot per "
    "tick (docs/guide/bandit.md); bandit-fgdqn takes its network settings from [bandit] (hidden1, "
    "hidden2, gamma, eps_*, lr, lr_decay, noise, batch, replay, x_scale), bandit-whittle-learn its "
    "learning scheme's from [bandit] (learn_*)"
#define CS_RECRAWL_POLICY(id, nm, sum) "; " nm ": " sum
#include "config/registry_recrawl.def"
#undef CS_RECRAWL_POLICY
#define CS_BANDIT_POLICY(id, nm, rn, sum) "; " rn ": " sum
#define CS_BANDIT_ONLY(id, nm)
#include "config/registry_bandit.def"
#undef CS_BANDIT_POLICY
#undef CS_BANDIT_ONLY
    ;

static const cs_conf_entry schema[] = {
    /* ---- [run] what crawlsim run crawls (DESIGN.md "One rank, one tick") ---- */
    {"run", "graph", CS_CONF_STRING, "", 0, 0, NULL, R(graph), RSZ(graph),
     "graph file to crawl (relative to the job file); empty: generate the [gen] world in memory, each rank only its own pages"},
    {"run", "partition", CS_CONF_STRING, "", 0, 0, NULL, R(partition), RSZ(partition),
     "partition file for the graph (crawlsim partition -o); used when partition_method = file"},
    {"run", "partition_method", CS_CONF_ENUM, "host-hash", 0, 0, "host-hash|block|file|metis-sampled", R(partition_method), 0,
     "host-hash or block: computed in memory at start-up; file: the partition file, or the graph file's own /partition group when partition is empty; metis-sampled: a generated world only (run.graph empty), METIS k-way on the host graph estimated from partition.sample pages per host, hosts kept whole"},
    {"run", "output", CS_CONF_STRING, "", 0, 0, NULL, R(output), RSZ(output),
     "results file (HDF5); empty: results/<job name>.h5 in the current directory; -o overrides"},
    {"run", "policy", CS_CONF_ENUM, "sarsa", 0, 0, discover_choices + 1, R(policy), 0, discover_doc},
    {"run", "seed", CS_CONF_INT, "1", 0, 9.2e18, NULL, R(seed), 0,
     "seed of the crawl's own randomness (exploration, random priorities, seed pages); independent of the world's gen.seed"},
    {"run", "ticks", CS_CONF_INT, "1000000", 1, 1e15, NULL, R(ticks), 0,
     "at most this many ticks per task"},
    {"run", "pages", CS_CONF_INT, "0", 0, 1e15, NULL, R(pages), 0,
     "a task ends after this many fetches in total over all ranks (Han et al.'s LIMIT_PAGES; 0 = no limit)"},
    {"run", "tasks", CS_CONF_INT, "1", 1, 1e9, NULL, R(tasks), 0,
     "crawling tasks in sequence: each restarts from the seed pages with an empty frontier but keeps the learned weights (Han et al. Fig. 3)"},
    {"run", "seeds", CS_CONF_INT, "10", 1, 1e9, NULL, R(seeds), 0,
     "number of seed pages (seed_pages = relevant, random, in-degree), the same for any rank count"},
    {"run", "seed_pages", CS_CONF_ENUM, "relevant", 0, 0, "relevant|random|in-degree|file", R(seed_pages), 0,
     "relevant: relevant pages chosen by a hash of (run.seed, page id); random: any pages by that hash (graphs without labels); in-degree: the pages of largest in-degree (ties: smaller id); file: the page ids of seed_file"},
    {"run", "seed_file", CS_CONF_STRING, "", 0, 0, NULL, R(seed_file), RSZ(seed_file),
     "seed_pages = file: a text file of page ids (0-based, as in the graph file), one per line, '#' comments; relative to the job file; every id is a seed (run.seeds is not used)"},
    {"run", "relevance", CS_CONF_ENUM, "graph", 0, 0, "graph|none", R(relevance), 0,
     "graph: the graph file's relevance (>= gen.relevance_threshold counts); none: a coverage crawl where every page counts (graphs without labels; the focused policies, which learn from relevance, refuse it: random and tree-random run)"},
    {"run", "record_every", CS_CONF_INT, "0", 0, 1e15, NULL, R(record_every), 0,
     "ticks between points of the /series datasets (0 = every crawl.sync_every ticks, or every 10 ticks when sync_every = 0)"},
    {"run", "trace", CS_CONF_BOOL, "false", 0, 0, NULL, R(trace), 0,
     "record every fetch as (tick, page) in /trace of the results file (for tests and small studies: 16 bytes per fetch)"},
    {"run", "progress", CS_CONF_INT, "10", 0, 1e6, NULL, R(progress), 0,
     "seconds between progress lines in batch logs (a terminal gets a live line)"},
    {"run", "checkpoint", CS_CONF_STRING, "", 0, 0, NULL, R(checkpoint), RSZ(checkpoint),
     "checkpoint file (HDF5, written collectively and atomically, replaced each time; relative to the current directory): written every checkpoint_every ticks and at the next tick boundary after SIGUSR1 (the run goes on) or SIGTERM (the run stops, exit status 3); continue with crawlsim run --restart FILE. Empty: no checkpoints, signals keep their default action"},
    {"run", "checkpoint_every", CS_CONF_INT, "0", 0, 1e15, NULL, R(checkpoint_every), 0,
     "ticks between checkpoints (counted over the whole run, all tasks); 0: only on SIGUSR1 or SIGTERM"},

    /* ---- [crawl] bandwidth, budgets, frontier, synchronisation ---- */
    {"crawl", "bandwidth", CS_CONF_INT, "1000", 1, 1e12, NULL, C(bandwidth), 0,
     "global bandwidth B: fetches per tick over all ranks"},
    {"crawl", "budget", CS_CONF_ENUM, "global", 0, 0, "global|proportional|fixed", C(budget), 0,
     "global: the exact global top-B by value across ranks (threshold by radix search on allreduced counts); proportional: B split by frontier sizes, rebalanced every rebalance_every ticks; fixed: B/P per rank"},
    {"crawl", "rebalance_every", CS_CONF_INT, "0", 0, 1e12, NULL, C(rebalance_every), 0,
     "proportional budget: ticks between rebalancing (0 = every sync_every ticks, or every tick when sync_every = 0)"},
    {"crawl", "exchange_every", CS_CONF_INT, "1", 1, 1e12, NULL, C(exchange_every), 0,
     "E: ticks between exchanges of the outboxes (links to other ranks' pages)"},
    {"crawl", "exchange", CS_CONF_ENUM, "sparse", 0, 0, "sparse|alltoallv|census", C(exchange), 0,
     "how the outboxes travel: sparse: a message only to each rank with records for it, received as it comes, then a non-blocking barrier (Hoefler, Siebert and Lumsdaine's NBX: no count exchange, cost in the messages actually sent); alltoallv: MPI_Alltoall of the counts, then MPI_Alltoallv: P - 1 messages per rank per exchange, records or not; census: a message only to each rank with records for it, and one MPI_Reduce_scatter that tells each rank how many come (their personalized census): no probing loop, every wait blocking (the method to simulate: docs/guide/simulated-cluster.md). The same records arrive in the same order either way: results do not depend on it"},
    {"crawl", "visited", CS_CONF_ENUM, "auto", 0, 0, "auto|replicated|owned", C(visited), 0,
     "where the visited set and the pages' evidence rows live (docs/developer/memory.md): replicated: one bit and one evidence row (4 x (2 + sarsa.categories) bytes) for every page of the world on every rank, and every rank receives every fetched page id each tick (an allgather, 8 bytes per fetch); owned: a rank holds only its own pages and its ghosts (other ranks' pages its pages link to: 4 bytes per local link, about 30 per ghost), and the owner of a fetched page sends its id only to the ranks that link to it. auto: owned when that takes less memory on the largest rank, which is the case at large rank counts. The crawl is the same either way; one rank and the strict setting of the selecting policies are always replicated"},
    {"crawl", "sync_every", CS_CONF_INT, "1", 0, 1e12, NULL, C(sync_every), 0,
     "K: ticks between synchronisations of the ranks' learned weights (crawl.weight_sync; 0 = never: every rank learns alone)"},
    {"crawl", "weight_sync", CS_CONF_ENUM, "sum", 0, 0, "sum|average", C(weight_sync), 0,
     "sum: one learner over all ranks (SARSA): a tick's updates are computed from the weights at its start and applied after its learning; every sync_every ticks every rank applies the exact sum (128-bit fixed point) of all ranks' updates since the last sync, so the learning rate does not depend on the rank count and, with budget = global, exchange_every = 1 and sync_every = 1, a crawl on P ranks is bit-identical to the crawl on 1 rank (docs/guide/synchronisation.md). A tick's SARSA step is then about sarsa.alpha x bandwidth: keep it <= 0.1 (a warning says so). The TRES policies take sum only in that strict setting (one logical policy on replicated state) on more than one rank. average: the weights are replaced by their mean over ranks (fixed rank order); with sync_every = 1 a step is w + (1/P) sum of the ranks' updates, i.e. SARSA learns at alpha / P"},
    {"crawl", "frontier_capacity", CS_CONF_INT, "1000000", 1, 2e9, NULL, C(frontier_capacity), 0,
     "most frontier entries per rank; beyond it the lowest-valued entries are evicted (and counted). In the strict setting (docs/guide/synchronisation.md) the capacity is global: the lowest-valued entries over all ranks beyond it"},
    {"crawl", "host_rate", CS_CONF_INT, "8", 0, 1e12, NULL, C(host_rate), 0,
     "politeness: at most this many fetches per host per tick over all ranks (0 = unlimited)"},

    /* ---- [sarsa] Han, Wuillemin, Senellart 2018 ---- */
    {"sarsa", "mode", CS_CONF_ENUM, "asynchronous", 0, 0, "synchronous|asynchronous|moderated", S(mode), 0,
     "synchronous: re-evaluate the whole frontier after the weights change; asynchronous: evaluate only new and updated links; moderated: asynchronous with the moderated update (Eq. 4)"},
    {"sarsa", "alpha", CS_CONF_STRING, "auto", 0, 0, NULL, S(alpha), SSZ(alpha),
     "step size alpha of the gradient update (Eq. 3), a number in [0, 1] or auto: the paper's 0.001, and under crawl.weight_sync = sum at most 0.01 / crawl.bandwidth (a tick then applies its bandwidth updates, all computed from the weights at its start, together: keep alpha x bandwidth <= 0.1, a warning says so)"},
    {"sarsa", "gamma", CS_CONF_DOUBLE, "0.9", 0, 0.999999, NULL, S(gamma), 0,
     "discount rate gamma"},
    {"sarsa", "epsilon", CS_CONF_DOUBLE, "0.1", 0, 1, NULL, S(epsilon), 0,
     "epsilon-greedy: the probability that a fetch is a uniformly random frontier entry"},
    {"sarsa", "beta", CS_CONF_DOUBLE, "0.4", 0.000001, 0.999999, NULL, S(beta), 0,
     "exponential smoothing factor of the ancestors' weighted relevance"},
    {"sarsa", "delta1", CS_CONF_DOUBLE, "0.1", 0, 1, NULL, S(delta1), 0,
     "relevance change within +-delta1 is bucket 0"},
    {"sarsa", "delta2", CS_CONF_DOUBLE, "0.3", 0, 1, NULL, S(delta2), 0,
     "relevance change beyond +-delta2 is its own bucket (increase 2, decrease 4)"},
    {"sarsa", "categories", CS_CONF_INT, "2", 0, 4, NULL, S(categories), 0,
     "related categories (the topics nearest the target on the topic ring) whose relevances are features"},
    {"sarsa", "reward", CS_CONF_ENUM, "paper", 0, 0, "paper|binary", S(reward), 0,
     "paper: 30 for a relevant page, 30/20 when the estimated relevance exceeds high/mid_threshold, else -1; binary: 1 relevant, 0 otherwise"},
    {"sarsa", "reward_relevant", CS_CONF_DOUBLE, "30", -1e6, 1e6, NULL, S(reward_relevant), 0,
     "paper reward of a relevant page"},
    {"sarsa", "reward_high", CS_CONF_DOUBLE, "30", -1e6, 1e6, NULL, S(reward_high), 0,
     "paper reward of an irrelevant page whose estimated relevance exceeds high_threshold"},
    {"sarsa", "reward_mid", CS_CONF_DOUBLE, "20", -1e6, 1e6, NULL, S(reward_mid), 0,
     "paper reward of an irrelevant page whose estimated relevance exceeds mid_threshold"},
    {"sarsa", "reward_other", CS_CONF_DOUBLE, "-1", -1e6, 1e6, NULL, S(reward_other), 0,
     "paper reward of any other page"},
    {"sarsa", "high_threshold", CS_CONF_DOUBLE, "0.5", 0, 1, NULL, S(high_threshold), 0,
     "estimated relevance above which an irrelevant page earns reward_high (the paper's w2v 0.5)"},
    {"sarsa", "mid_threshold", CS_CONF_DOUBLE, "0.4", 0, 1, NULL, S(mid_threshold), 0,
     "estimated relevance above which an irrelevant page earns reward_mid (the paper's w2v 0.4)"},

    /* ---- [tres] Kontogiannis et al., TRES (tres-tree-frontier.md Sec. 2.4-2.6) ---- */
    {"tres", "hidden1", CS_CONF_INT, "30", 1, 4096, NULL, T(hidden1), 0,
     "first hidden layer of the Q-network (LeakyReLU 0.1; the authors' 7 -> 30 -> 15 -> 1)"},
    {"tres", "hidden2", CS_CONF_INT, "15", 1, 4096, NULL, T(hidden2), 0,
     "second hidden layer of the Q-network"},
    {"tres", "lr", CS_CONF_DOUBLE, "0.001", 1e-9, 1, NULL, T(lr), 0,
     "Adam learning rate (gradients clipped by global norm 1)"},
    {"tres", "gamma", CS_CONF_DOUBLE, "0.3", 0, 1, NULL, T(gamma), 0,
     "discount of the double-DQN target; the paper argues for a small one (0.3, Sec. 2.7); the authors' code uses 0.99"},
    {"tres", "batch", CS_CONF_INT, "60", 1, 100000, NULL, T(batch), 0,
     "minibatch size (the authors: 60, and 128 at MAX = 5)"},
    {"tres", "train_every", CS_CONF_INT, "3", 1, 1000000, NULL, T(train_every), 0,
     "one gradient step every this many fetches of the rank (the authors: 3, and 1 at MAX = 5)"},
    {"tres", "replay", CS_CONF_INT, "20000", 1, 100000000, NULL, T(replay), 0,
     "replay buffer capacity in transitions"},
    {"tres", "target_every", CS_CONF_INT, "500", 1, 1000000000, NULL, T(target_every), 0,
     "gradient steps between copies of the online network into the target network"},
    {"tres", "warmup", CS_CONF_INT, "300", 0, 1e15, NULL, T(warmup), 0,
     "the first this many fetches of the run (over all ranks) take a random sample of a random leaf (tres) or a random entry (tres-async); then greedy"},
    {"tres", "epsilon", CS_CONF_DOUBLE, "0", 0, 1, NULL, T(epsilon), 0,
     "after the warm-up, the probability that a tick explores as in the warm-up (the authors' code: 0)"},
    {"tres", "max_per_host", CS_CONF_STRING, "inf", 0, 0, NULL, T(max_per_host), TSZ(max_per_host),
     "MAX: at most this many fetches per host in a task, for every policy: inf, a positive integer (the paper: 100, 10, 5) or adaptive (5, then 4, 3, 2 in the quarters of the task's run.pages)"},
    {"tres", "host_features", CS_CONF_BOOL, "true", 0, 0, NULL, T(host_features), 0,
     "the two web-domain features (host relevant ratio, host known); off: TRES_NH of the paper's Table 4"},
    {"tres", "min_samples", CS_CONF_INT, "5", 2, 1000000, NULL, T(min_samples), 0,
     "Tree-Frontier: experience samples a leaf needs before a split is tried"},
    {"tres", "max_depth", CS_CONF_INT, "18", 0, 60, NULL, T(max_depth), 0,
     "Tree-Frontier: leaves at this depth never split"},
    {"tres", "max_next", CS_CONF_INT, "256", 0, 100000, NULL, T(max_next), 0,
     "at most this many out-links of a fetched page are stored as the next candidates of its transition (the double-DQN argmax)"},

    /* ---- [refresh] re-crawls sharing the budget with discovery (lambdacrawl-freshness-scheduling.txt; docs/guide/refresh.md) ---- */
    {"refresh", "policy", CS_CONF_ENUM, "none", 0, 0, recrawl_choices, F(policy), 0, recrawl_doc},
    {"refresh", "fraction", CS_CONF_STRING, "0.2", 0, 0, NULL, F(fraction), FSZ(fraction),
     "share f of crawl.bandwidth B given to re-crawls: the refresh bandwidth is R = f B / tick_time crawls per time unit, solved over the cached pages of all ranks; discovery gets B minus the tick's re-crawls. A number in (0, 1], or adaptive (split_*)"},
    {"refresh", "tick_time", CS_CONF_DOUBLE, "0.01", 1e-9, 1e9, NULL, F(tick_time), 0,
     "simulated time units per tick (the unit of gen.delta_median: changes per time unit); tick T is at time T tick_time, counted over all tasks"},
    {"refresh", "sync_every", CS_CONF_INT, "100", 1, 1e12, NULL, F(sync_every), 0,
     "ticks between re-solves of the schedule over the cached pages (pages fetched since join it) and points of /refresh; the learners' epoch is sync_every * tick_time"},
    {"refresh", "split_start", CS_CONF_DOUBLE, "0.2", 0.000001, 1, NULL, F(split_start), 0,
     "fraction = adaptive: the first share f"},
    {"refresh", "split_step", CS_CONF_DOUBLE, "0.05", 0, 1, NULL, F(split_step), 0,
     "fraction = adaptive: at each sync f moves by this toward refresh when the last epoch's re-crawls found a change more often than its discovery fetches found a relevant page (both integer counts over all ranks), else toward discovery"},
    {"refresh", "split_min", CS_CONF_DOUBLE, "0.05", 0.000001, 1, NULL, F(split_min), 0,
     "fraction = adaptive: the least share f"},
    {"refresh", "split_max", CS_CONF_DOUBLE, "0.8", 0.000001, 1, NULL, F(split_max), 0,
     "fraction = adaptive: the largest share f"},
    {"refresh", "epsilon", CS_CONF_DOUBLE, "0.1", 1e-9, 0.999999, NULL, F(epsilon), 0,
     "binary-lambdacrawl-floor and lambda-learn-binary: rate floor epsilon R / N"},
    {"refresh", "learn_guess", CS_CONF_DOUBLE, "1", 1e-12, 1e12, NULL, F(learn_guess), 0,
     "lambda-learn*: initial change-rate estimate of every page (changes per time unit)"},
    {"refresh", "learn_suffix", CS_CONF_INT, "0", 0, 1e9, NULL, F(learn_suffix), 0,
     "lambda-learn*: epochs of history the estimators (Eqs. 10, 11) use; 0: all of them (Prop. 8)"},
    {"refresh", "adapt_shrink", CS_CONF_DOUBLE, "0.8", 0.000001, 1, NULL, F(adapt_shrink), 0,
     "adaptive policy (Nutch, StormCrawler): a page's interval is multiplied by this after a crawl that found a change"},
    {"refresh", "adapt_grow", CS_CONF_DOUBLE, "1.4", 1, 1e6, NULL, F(adapt_grow), 0,
     "adaptive policy: the interval is multiplied by this after a crawl that found none"},
    {"refresh", "adapt_init", CS_CONF_DOUBLE, "0", 0, 1e12, NULL, F(adapt_init), 0,
     "adaptive policy: first interval in time units (0: N / R over the pages cached at the first sync)"},
    {"refresh", "adapt_min", CS_CONF_DOUBLE, "0", 0, 1e12, NULL, F(adapt_min), 0,
     "adaptive policy: shortest interval (0: adapt_init / 64)"},
    {"refresh", "adapt_max", CS_CONF_DOUBLE, "0", 0, 1e12, NULL, F(adapt_max), 0,
     "adaptive policy: longest interval (0: adapt_init * 64)"},
    {"refresh", "group_by", CS_CONF_ENUM, "rate-class", 0, 0, "rate-class|host", F(group_by), 0,
     "bandit-* policies: the arms are groups of cached pages: rate-class (groups log-spaced classes of the change rate delta between its smallest and largest value over all pages) or host (one arm per host)"},
    {"refresh", "groups", CS_CONF_INT, "8", 1, 4096, NULL, F(groups), 0,
     "group_by = rate-class: the number of classes"},
    {"refresh", "whittle_decay", CS_CONF_DOUBLE, "1", 1e-9, 1e9, NULL, F(whittle_decay), 0,
     "bandit-whittle: decay rate c of the accumulated interest per time unit (Whittle paper Sec. II; alpha = exp(-c tick_time))"},

    /* ---- [gen] the synthetic web (DESIGN.md "The world") ---- */
    {"gen", "pages", CS_CONF_INT, "1000000", 1, 2147483647.0, NULL, G(pages), 0,
     "number of pages N (ids 0..N-1); at most 2^31-1 so that METIS (32-bit idx_t) can partition it"},
    {"gen", "seed", CS_CONF_INT, "1", 0, 9.2e18, NULL, G(seed), 0,
     "seed of the world: every value is a pure function of (seed, page id)"},
    {"gen", "host_size_mean", CS_CONF_DOUBLE, "20", 1, 1e6, NULL, G(host_size_mean), 0,
     "mean number of pages per host (before truncation of the last host)"},
    {"gen", "host_size_alpha", CS_CONF_DOUBLE, "2.1", 1.05, 10, NULL, G(host_size_alpha), 0,
     "density exponent of the power-law host-size distribution"},
    {"gen", "host_size_max", CS_CONF_INT, "100000", 1, 2147483647.0, NULL, G(host_size_max), 0,
     "largest host, in pages"},
    {"gen", "topics", CS_CONF_INT, "64", 1, 65536, NULL, G(topics), 0,
     "number of topics K"},
    {"gen", "topic_skew", CS_CONF_DOUBLE, "0.5", 0, 5, NULL, G(topic_skew), 0,
     "Zipf exponent of topic sizes: topic t gets a share proportional to (t+1)^-skew"},
    {"gen", "target_topic", CS_CONF_INT, "5", 0, 65535, NULL, G(target_topic), 0,
     "the focused crawl's target topic (relevance is measured against it); must be < topics"},
    {"gen", "host_topic_purity", CS_CONF_DOUBLE, "0.9", 0, 1, NULL, G(host_topic_purity), 0,
     "probability that a page has its host's topic (otherwise a topic drawn by size)"},
    {"gen", "degree_mean", CS_CONF_DOUBLE, "16", 1, 10000, NULL, G(degree_mean), 0,
     "mean out-degree drawn per page (duplicate and self links are then removed)"},
    {"gen", "degree_alpha", CS_CONF_DOUBLE, "2.7", 1.05, 10, NULL, G(degree_alpha), 0,
     "density exponent of the power-law out-degree distribution"},
    {"gen", "degree_max", CS_CONF_INT, "2000", 1, 1000000, NULL, G(degree_max), 0,
     "largest out-degree drawn"},
    {"gen", "p_host", CS_CONF_DOUBLE, "0.7", 0, 1, NULL, G(p_host), 0,
     "probability that a link stays inside its host"},
    {"gen", "p_topic", CS_CONF_DOUBLE, "0.25", 0, 1, NULL, G(p_topic), 0,
     "probability that a link goes to another host of the page's topic; the rest (1 - p_host - p_topic) go anywhere"},
    {"gen", "host_popularity_skew", CS_CONF_DOUBLE, "1.0", 0, 5, NULL, G(host_popularity_skew), 0,
     "Zipf exponent of host popularity when a link leaves its host (heavy-tailed in-degrees)"},
    {"gen", "page_popularity_skew", CS_CONF_DOUBLE, "1.2", 0, 5, NULL, G(page_popularity_skew), 0,
     "Zipf exponent of page popularity inside a host (the home page is the most linked)"},
    {"gen", "hub_fraction", CS_CONF_DOUBLE, "0.005", 0, 1, NULL, G(hub_fraction), 0,
     "fraction of pages that are hubs: many links across hosts into one topic"},
    {"gen", "hub_degree_factor", CS_CONF_DOUBLE, "4", 1, 1000, NULL, G(hub_degree_factor), 0,
     "a hub's out-degree is this many times a normal draw (capped by degree_max)"},
    {"gen", "hub_focus", CS_CONF_DOUBLE, "0.9", 0, 1, NULL, G(hub_focus), 0,
     "probability that a hub's link goes into the hub's topic on another host"},
    {"gen", "topic_spread", CS_CONF_DOUBLE, "1.0", 0.01, 1000, NULL, G(topic_spread), 0,
     "topics lie on a ring; similarity to the target decays as exp(-ring distance / topic_spread)"},
    {"gen", "relevance_noise", CS_CONF_DOUBLE, "0.1", 0, 10, NULL, G(relevance_noise), 0,
     "standard deviation of the noise added to a page's topic similarity to give its relevance"},
    {"gen", "relevance_threshold", CS_CONF_DOUBLE, "0.5", 0, 1, NULL, G(relevance_threshold), 0,
     "a page is relevant when its relevance is at least this"},
    {"gen", "term_dim", CS_CONF_INT, "16", 2, 1024, NULL, G(term_dim), 0,
     "length of the derived page term and anchor vectors"},
    {"gen", "term_noise", CS_CONF_DOUBLE, "0.5", 0, 100, NULL, G(term_noise), 0,
     "noise of a page's term vector around its topic's prototype (per component, prototype has unit norm)"},
    {"gen", "anchor_noise", CS_CONF_DOUBLE, "6.0", 0, 100, NULL, G(anchor_noise), 0,
     "extra noise (norm) of a link's anchor vector around its target page's term vector: anchors are weak evidence, as anchor text is (docs/guide/running.md shows how the policies compare as it varies)"},
    {"gen", "delta_median", CS_CONF_DOUBLE, "0.1", 1e-9, 1e9, NULL, G(delta_median), 0,
     "median change rate (Poisson changes per time unit) of an ordinary host"},
    {"gen", "delta_host_sigma", CS_CONF_DOUBLE, "1.0", 0, 10, NULL, G(delta_host_sigma), 0,
     "log-normal sigma of host change rates around delta_median"},
    {"gen", "delta_page_sigma", CS_CONF_DOUBLE, "0.5", 0, 10, NULL, G(delta_page_sigma), 0,
     "log-normal sigma of a page's change rate around its host's"},
    {"gen", "news_fraction", CS_CONF_DOUBLE, "0.02", 0, 1, NULL, G(news_fraction), 0,
     "fraction of hosts that are news-like"},
    {"gen", "news_factor", CS_CONF_DOUBLE, "20", 1, 1e6, NULL, G(news_factor), 0,
     "news-like hosts change this many times faster"},
    {"gen", "mu_alpha", CS_CONF_DOUBLE, "2.5", 1.05, 10, NULL, G(mu_alpha), 0,
     "importance mu is Pareto with minimum 1 and this density exponent"},
    {"gen", "observable_fraction", CS_CONF_DOUBLE, "0.04", 0, 1, NULL, G(observable_fraction), 0,
     "fraction of pages whose changes are observable without a crawl (sitemaps)"},
    {"gen", "materialize", CS_CONF_BOOL, "true", 0, 0, NULL, G(materialize), 0,
     "crawlsim run on a world generated in memory (run.graph empty): true builds every owned page's links and attributes before the crawl (about 300 bytes a page); false computes a page's links, attributes, evidence and change clock when the crawl needs them, from the same functions, and stores only what the crawl touched (the procedural world, docs/guide/generating.md; refuses run.seed_pages = in-degree and crawl.visited = owned, which need the graph before the crawl)"},

    /* ---- [bandit] crawlsim bandit: the restless-bandit experiments (bandit.h) ---- */
    {"bandit", "experiment", CS_CONF_ENUM, "freshness", 0, 0, "ephemeral|freshness", B(experiment), 0,
     "ephemeral: Whittle paper (arms accumulate interest, reward = state of the crawled arms); freshness: DRL paper (groups of pages, reward = importance of a crawled page that had changed)"},
    {"bandit", "policies", CS_CONF_STRING, "", 0, 0, NULL, B(policies), BSZ(policies),
     "comma-separated policies of the bandit registry to run (crawlsim bandit --help lists each experiment's; fixed: always the same arm, one series per arm); empty = all of the experiment's"},
    {"bandit", "runs", CS_CONF_INT, "10", 1, 1e6, NULL, B(runs), 0,
     "independent runs per policy (their streams differ by run number); the 95 % intervals are Student-t over runs"},
    {"bandit", "horizon", CS_CONF_INT, "5000", 1, 1e9, NULL, B(horizon), 0,
     "ticks per run"},
    {"bandit", "seed", CS_CONF_INT, "1", 0, 9.2e18, NULL, B(seed), 0,
     "seed of every random stream of the experiment (page changes, policies, network weights)"},
    {"bandit", "window", CS_CONF_INT, "200", 1, 1e9, NULL, B(window), 0,
     "moving-average window in ticks (DRL paper Figs. 3-4: 200)"},
    {"bandit", "output", CS_CONF_STRING, "", 0, 0, NULL, B(output), BSZ(output),
     "results file (HDF5); empty: results/<job name>.h5; -o overrides"},
    {"bandit", "arrival", CS_CONF_STRING, "250,250,250,250", 0, 0, NULL, B(arrival), BSZ(arrival),
     "ephemeral: content arrival rate lambda_i per arm (Poisson, per tick), comma-separated; the number of entries is the number of arms"},
    {"bandit", "decay", CS_CONF_STRING, "0.7,0.35,0.7,0.21", 0, 0, NULL, B(decay), BSZ(decay),
     "ephemeral: interest decay rate c_i > 0 per arm (alpha_i = exp(-c_i))"},
    {"bandit", "lifetime", CS_CONF_STRING, "inf", 0, 0, NULL, B(lifetime), BSZ(lifetime),
     "ephemeral: content lifetime M_i in ticks per arm, or inf; one value applies to every arm"},
    {"bandit", "cost", CS_CONF_STRING, "1", 0, 0, NULL, B(cost), BSZ(cost),
     "ephemeral: the normalising constant C_i of Eq. 4 per arm (one value applies to every arm)"},
    {"bandit", "crawlers", CS_CONF_INT, "1", 1, 1e9, NULL, B(crawlers), 0,
     "ephemeral: N0, arms crawled per tick by the Whittle policy"},
    {"bandit", "learn_kappa", CS_CONF_DOUBLE, "2", 1e-9, 1e9, NULL, B(learn_kappa), 0,
     "learning scheme: slope kappa of the logistic relaxation (Sec. V: 2)"},
    {"bandit", "learn_gamma", CS_CONF_DOUBLE, "0.05", 0, 1, NULL, B(learn_gamma), 0,
     "learning scheme: LSPE(0) step gamma (Sec. V: 0.05)"},
    {"bandit", "learn_delta", CS_CONF_DOUBLE, "0.001", 1e-300, 1e9, NULL, B(learn_delta), 0,
     "learning scheme: Tikhonov delta of (B^T B + delta I)^-1 B^T"},
    {"bandit", "learn_epsilon", CS_CONF_DOUBLE, "1", 1e-300, 1e9, NULL, B(learn_epsilon), 0,
     "learning scheme: B(-1) = epsilon I"},
    {"bandit", "learn_a_c", CS_CONF_DOUBLE, "0.5", 0, 1e9, NULL, B(learn_a_c), 0,
     "learning scheme: slow step a(n) = a_c / ceil((n+1) / a_period) (thresholds)"},
    {"bandit", "learn_a_period", CS_CONF_DOUBLE, "500", 1, 1e12, NULL, B(learn_a_period), 0,
     "learning scheme: a_period (Sec. IV: 500)"},
    {"bandit", "learn_b_c", CS_CONF_DOUBLE, "0.5", 0, 1, NULL, B(learn_b_c), 0,
     "learning scheme: fast step b(n) = b_c / ceil((n+1) / b_period)^(2/3) (LSPE statistics)"},
    {"bandit", "learn_b_period", CS_CONF_DOUBLE, "1000", 1, 1e12, NULL, B(learn_b_period), 0,
     "learning scheme: b_period (Sec. IV: 1000)"},
    {"bandit", "learn_inverse", CS_CONF_ENUM, "tikhonov", 0, 0, "tikhonov|sherman-morrison", B(learn_inverse), 0,
     "learning scheme: how B-bar is inverted: Tikhonov-regularised (Sec. V) or the Sherman-Morrison recursion (Sec. IV)"},
    {"bandit", "learn_features", CS_CONF_ENUM, "quadratic", 0, 0, "quadratic|linear", B(learn_features), 0,
     "learning scheme: value features phi: quadratic [x_i, x_i x_j] (Sec. V) or linear [1, x_i]"},
    {"bandit", "group_sizes", CS_CONF_STRING, "1,1,1,1", 0, 0, NULL, B(group_sizes), BSZ(group_sizes),
     "freshness: pages per group (arm), comma-separated; the number of entries is the number of arms"},
    {"bandit", "rates", CS_CONF_STRING, "0.6,0.08,0.01,0.3", 0, 0, NULL, B(rates), BSZ(rates),
     "freshness: Poisson change rate of each page of a group, per time unit; a page changes in a slot with probability 1 - exp(-rate * slot)"},
    {"bandit", "importance", CS_CONF_STRING, "5,0.2,1,0.5", 0, 0, NULL, B(importance), BSZ(importance),
     "freshness: importance mu_k of a group's pages (the reward of crawling a changed page)"},
    {"bandit", "slot", CS_CONF_DOUBLE, "1", 1e-12, 1e12, NULL, B(slot), 0,
     "freshness: time units per tick"},
    {"bandit", "hidden1", CS_CONF_INT, "64", 1, 1e6, NULL, B(hidden1), 0,
     "FG-DQN: first hidden layer (ReLU; the DRL paper: 4000)"},
    {"bandit", "hidden2", CS_CONF_INT, "8", 1, 1e6, NULL, B(hidden2), 0,
     "FG-DQN: second hidden layer (ReLU; the DRL paper: 8)"},
    {"bandit", "gamma", CS_CONF_DOUBLE, "0.95", 0, 0.999999, NULL, B(gamma), 0,
     "FG-DQN: discount factor (the DRL paper: 0.95)"},
    {"bandit", "eps_start", CS_CONF_DOUBLE, "0.7", 0, 1, NULL, B(eps_start), 0,
     "FG-DQN: initial exploration probability (the DRL paper: 0.7)"},
    {"bandit", "eps_end", CS_CONF_DOUBLE, "0.1", 0, 1, NULL, B(eps_end), 0,
     "FG-DQN: final exploration probability (the DRL paper: 0.1)"},
    {"bandit", "eps_steps", CS_CONF_INT, "2000", 0, 1e12, NULL, B(eps_steps), 0,
     "FG-DQN: ticks of the linear decay from eps_start to eps_end (not given in the paper)"},
    {"bandit", "lr", CS_CONF_DOUBLE, "0.001", 1e-12, 10, NULL, B(lr), 0,
     "FG-DQN: step size a(n) = lr / (1 + n / lr_decay) of Eq. 9 (not given in the paper)"},
    {"bandit", "lr_decay", CS_CONF_DOUBLE, "10000", 1e-9, 1e15, NULL, B(lr_decay), 0,
     "FG-DQN: lr_decay of the step size"},
    {"bandit", "noise", CS_CONF_DOUBLE, "1", 0, 1e6, NULL, B(noise), 0,
     "FG-DQN: the extraneous noise xi of Eq. 9 is uniform on [-noise, noise] per parameter (the paper: [-1, 1])"},
    {"bandit", "batch", CS_CONF_INT, "32", 1, 1024, NULL, B(batch), 0,
     "FG-DQN: minibatch size B (not given in the paper)"},
    {"bandit", "replay", CS_CONF_INT, "10000", 1, 1e9, NULL, B(replay), 0,
     "FG-DQN: replay memory M, transitions (not given in the paper)"},
    {"bandit", "x_scale", CS_CONF_DOUBLE, "100", 1e-9, 1e12, NULL, B(x_scale), 0,
     "FG-DQN: the network sees X_k / x_scale (ticks since group k was chosen)"},

    /* ---- [import] real graphs into the same schema (crawlsim import) ---- */
    {"import", "edges", CS_CONF_STRING, "", 0, 0, NULL, I(edges), SZ(edges),
     "edge file(s), plain or gzip, comma separated; relative to the spec file; a wildcard (*, ?, [...]) stands for the files it matches, in sorted order"},
    {"import", "edge_format", CS_CONF_ENUM, "pairs", 0, 0, "pairs|adjacency|adjacency-indexed|successors|asciigraph|bvgraph|gml", I(edge_format), 0,
     "pairs: one link per line; adjacency: 'src dst1 dst2 ...' (one line per source); adjacency-indexed: line i is page i, 'outdeg dst1 ...'; successors: line i is page i, 'dst1 dst2 ...' (an empty line: none); asciigraph: WebGraph's ASCIIGraph, a line with the node count, then as successors; bvgraph: WebGraph's compressed BASENAME.graph with its BASENAME.properties (edges names the .graph file); gml: GML, 'graph [ node [ id ... ] edge [ source ... target ... ] ]', node ids as names, both directions when not directed"},
    {"import", "separators", CS_CONF_STRING, " \\t", 0, 0, NULL, I(separators), SZ(separators),
     "field separator characters of edge lines (\\t = tab, \\s = space); runs of separators count as one"},
    {"import", "comment", CS_CONF_STRING, "#", 0, 0, NULL, I(comment), SZ(comment),
     "lines starting with this prefix are skipped (empty: none)"},
    {"import", "skip_lines", CS_CONF_INT, "0", 0, 1e9, NULL, I(skip_lines), 0,
     "header lines to skip at the start of each edge file"},
    {"import", "src_field", CS_CONF_INT, "0", 0, 1000, NULL, I(src_field), 0,
     "pairs: field holding the link's source"},
    {"import", "dst_field", CS_CONF_INT, "1", 0, 1000, NULL, I(dst_field), 0,
     "pairs: field holding the link's target"},
    {"import", "weight_field", CS_CONF_INT, "-2", -2, 1000, NULL, I(weight_field), 0,
     "pairs: field holding a link multiplicity (-1 = last field, -2 = none)"},
    {"import", "reverse", CS_CONF_BOOL, "false", 0, 0, NULL, I(reverse), 0,
     "the file lists links target first (the link goes from dst_field to src_field)"},
    {"import", "node_ids", CS_CONF_ENUM, "integer", 0, 0, "integer|name", I(node_ids), 0,
     "integer: nodes are numbers (page id = number - id_base); name: any string, numbered in page-table order, then by first appearance"},
    {"import", "id_base", CS_CONF_INT, "0", 0, 1, NULL, I(id_base), 0,
     "integer ids: 0- or 1-based"},
    {"import", "self_loops", CS_CONF_ENUM, "drop", 0, 0, "drop|keep", I(self_loops), 0,
     "what to do with links from a page to itself"},
    {"import", "node_count", CS_CONF_INT, "0", 0, 2147483647, NULL, I(node_count), 0,
     "declared number of pages (integer ids 0 .. node_count - 1 after id_base; 0 = not declared); adjacency-indexed, successors, asciigraph and bvgraph infer it from the file"},
    {"import", "new_ids", CS_CONF_ENUM, "error", 0, 0, "error|allow", I(new_ids), 0,
     "a node id at or beyond the declared or inferred node count: an error naming the file, line and id, or a new page"},
    {"import", "gml_label", CS_CONF_STRING, "", 0, 0, NULL, I(gml_label), SZ(gml_label),
     "edge_format = gml: the node attribute that is the page's label (topics, target_label), e.g. value"},
    {"import", "gml_url", CS_CONF_STRING, "", 0, 0, NULL, I(gml_url), SZ(gml_url),
     "edge_format = gml: the node attribute that is the page's URL (hosts = url), e.g. label"},
    {"import", "pages", CS_CONF_STRING, "", 0, 0, NULL, I(pages), SZ(pages),
     "optional page table(s), plain or gzip, comma separated (wildcards as in edges): one page per line"},
    {"import", "page_list", CS_CONF_STRING, "", 0, 0, NULL, I(page_list), SZ(page_list),
     "optional file(s) listing pages, one id or name per line (first field; page-table separators, skip lines and comments): each becomes a page, numbered before the page tables"},
    {"import", "page_separators", CS_CONF_STRING, " \\t", 0, 0, NULL, I(page_separators), SZ(page_separators),
     "field separator characters of page-table lines (the same default as separators: blanks and tabs; \\t alone for fields holding spaces); fields are trimmed of blanks"},
    {"import", "page_skip_lines", CS_CONF_INT, "0", 0, 1e9, NULL, I(page_skip_lines), 0,
     "header lines to skip at the start of each page table"},
    {"import", "page_id_field", CS_CONF_INT, "0", -1, 1000, NULL, I(page_id_field), 0,
     "page table: field with the node id or name (-1 = last)"},
    {"import", "page_url_field", CS_CONF_INT, "-2", -2, 1000, NULL, I(page_url_field), 0,
     "page table: field with the page URL, the host is taken from it (-1 = last, -2 = none)"},
    {"import", "page_host_field", CS_CONF_INT, "-2", -2, 1000, NULL, I(page_host_field), 0,
     "page table: field with the host name (-1 = last, -2 = none)"},
    {"import", "page_label_field", CS_CONF_INT, "-2", -2, 1000, NULL, I(page_label_field), 0,
     "page table: field with the label, which becomes the topic (-1 = last, -2 = none)"},
    {"import", "page_relevance_field", CS_CONF_INT, "-2", -2, 1000, NULL, I(page_relevance_field), 0,
     "page table: field with the page's relevance, a number in [0, 1] (-1 = last, -2 = none; instead of target_label): focused crawls of graphs whose labels are scores"},
    {"import", "page_features", CS_CONF_ENUM, "none", 0, 0, "none|dense-binary|sparse", I(page_features), 0,
     "page table text features: dense-binary 0/1 fields, or sparse 'index:value' fields"},
    {"import", "page_features_first", CS_CONF_INT, "1", 0, 1000000, NULL, I(page_features_first), 0,
     "page table: first field of the text features"},
    {"import", "page_features_count", CS_CONF_INT, "0", 0, 10000000, NULL, I(page_features_count), 0,
     "dense-binary: number of feature fields; sparse: the feature dimension (0 = 1 + largest index)"},
    {"import", "label_depth", CS_CONF_INT, "0", 0, 100, NULL, I(label_depth), 0,
     "hierarchical labels 'a.b.c': keep this many leading components (0 = the whole label)"},
    {"import", "hosts", CS_CONF_ENUM, "url", 0, 0, "url|field|node|single|per-page", I(hosts), 0,
     "host of a page: from its URL, from page_host_field, the node name itself (host graphs), one host for all, or one host per page"},
    {"import", "host_names", CS_CONF_ENUM, "as-is", 0, 0, "as-is|reversed", I(host_names), 0,
     "reversed: host names are written with their components reversed, 'com.example.www' (Common Crawl's host and domain graphs), and are turned back into 'www.example.com' (hosts = field, node)"},
    {"import", "page_ids", CS_CONF_ENUM, "field", 0, 0, "field|line", I(page_ids), 0,
     "field: a page table line's id is page_id_field; line: the i-th data line of the page tables (counted across them in order) is page i, as in LAW's .urls files (one URL per line)"},
    {"import", "lowercase_names", CS_CONF_BOOL, "false", 0, 0, NULL, I(lowercase_names), 0,
     "lower-case node and host names, merging case variants"},
    {"import", "target_label", CS_CONF_STRING, "", 0, 0, NULL, I(target_label), SZ(target_label),
     "label of the target topic: its pages get relevance 1, others 0 (empty: no labels, relevance 0)"},

    /* ---- [partition] assigning pages to ranks (crawlsim partition) ---- */
    {"partition", "method", CS_CONF_ENUM, "metis-host", 0, 0, "metis-host|metis|host-hash|block", P(method), 0,
     "metis-host: METIS k-way on the host graph, hosts kept whole; metis: METIS on the symmetrised page graph; host-hash: hash of the host (Nutch, StormCrawler); block: contiguous page ids"},
    {"partition", "ufactor", CS_CONF_INT, "30", 1, 1000, NULL, P(ufactor), 0,
     "METIS load imbalance: the heaviest part may weigh up to 1 + ufactor/1000 times the mean"},
    {"partition", "seed", CS_CONF_INT, "1", 0, 2147483647.0, NULL, P(seed), 0,
     "seed of METIS and of the host hash: the same seed gives the same partition"},
    {"partition", "objective", CS_CONF_ENUM, "cut", 0, 0, "cut|volume", P(objective), 0,
     "what METIS minimises: links cut, or total communication volume"},
    {"partition", "vertex_weight", CS_CONF_ENUM, "pages", 0, 0, "pages|links", P(vertex_weight), 0,
     "what METIS balances: pages per part, or out-links per part"},
    {"partition", "sample", CS_CONF_INT, "4", 0, 2147483647.0, NULL, P(sample), 0,
     "run.partition_method = metis-sampled: the out-links of this many pages per host (evenly spaced in the host; all of a smaller host) estimate the host graph, each host's links scaled by its pages over those sampled; 0: every page (the exact host graph)"},
};
/* clang-format on */

const cs_conf_entry *cs_config_schema(size_t *n)
{
    *n = sizeof schema / sizeof schema[0];
    return schema;
}
