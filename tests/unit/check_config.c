/*
 * Unit tests of config: parsing, typed values, ranges, suggestions for unknown keys, file:line
 * in messages, --set overrides, round trip through the resolved INI text, generated help.
 */
#include "crawlsim/config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cs_ctx ctx;

static void setup(void)
{
    cs_ctx_init_local(&ctx, CS_LOG_ERROR);
}

static cs_err parse(const char *text, cs_config *cfg)
{
    cs_config_defaults(cfg);
    cs_ctx_clear_error(&ctx);
    return cs_config_parse_string(&ctx, text, "job.ini", cfg);
}

START_TEST(defaults_are_valid)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 1000000);
    ck_assert_double_eq(cfg.gen.degree_mean, 16.0);
    ck_assert_str_eq(cfg.import.separators, " \t");
    ck_assert_int_eq(cfg.import.weight_field, CS_FIELD_NONE);
}
END_TEST

START_TEST(parses_every_type)
{
    cs_config cfg;
    const char *text = "; comment\n[gen]\npages = 1234\ndegree_mean = 7.5\n"
                       "[import]\nreverse = yes\nedge_format = adjacency-indexed\n"
                       "separators = |\\t\nedges = a.gz, b.gz\n";
    ck_assert_int_eq(parse(text, &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 1234);
    ck_assert_double_eq(cfg.gen.degree_mean, 7.5);
    ck_assert_int_eq(cfg.import.reverse, 1);
    ck_assert_int_eq(cfg.import.edge_format, CS_EDGES_ADJACENCY_INDEXED);
    ck_assert_str_eq(cfg.import.separators, "|\t");
    ck_assert_str_eq(cfg.import.edges, "a.gz, b.gz");
    /* integral floating forms are accepted for integers */
    ck_assert_int_eq(parse("[gen]\npages = 1e6\n", &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 1000000);
}
END_TEST

START_TEST(unknown_key_suggests_nearest)
{
    cs_config cfg;
    ck_assert_int_eq(parse("[gen]\npages = 10\ndegre_mean = 3\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:3"));
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "did you mean 'gen.degree_mean'"));
    /* right key, wrong section */
    ck_assert_int_eq(parse("[import]\npages_total = 3\n[genn]\nseed = 1\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:2"));
    ck_assert_int_eq(parse("[genn]\nseed = 1\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "did you mean 'gen.seed'"));
    /* nothing close: no suggestion, but still the line */
    ck_assert_int_eq(parse("\n\n[gen]\nzzzzzzzzzzzzzzzz = 1\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:4"));
    ck_assert_ptr_null(strstr(ctx.errmsg, "did you mean"));
}
END_TEST

START_TEST(bad_values_name_file_and_line)
{
    cs_config cfg;
    ck_assert_int_eq(parse("[gen]\n\npages = ten\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:3"));
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "not an integer"));
    ck_assert_int_eq(parse("[gen]\npages = -5\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "outside"));
    ck_assert_int_eq(parse("[gen]\npages = 99999999999999\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[gen]\npages = 1.5\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[gen]\np_host = 1.5\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[gen]\np_host = nan\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[gen]\np_host = 0.5x\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[import]\nreverse = maybe\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "not a boolean"));
    ck_assert_int_eq(parse("[import]\nedge_format = csv\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "pairs|adjacency"));
    ck_assert_int_eq(parse("pages = 3\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "outside any [section]"));
    ck_assert_int_eq(parse("[gen]\nthis line has no equals sign\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:2"));
}
END_TEST

/* Issue 20: inih's line buffer (200 bytes in its default build) cut long lines in two, and the
 * tail of a long comment became a key of its own. */
START_TEST(long_lines_are_never_split)
{
    cs_config cfg;
    char text[4096];
    char filler[1500];
    memset(filler, 'z', sizeof filler - 1);
    filler[sizeof filler - 1] = '\0';
    /* a comment of 1500 characters whose tail looks like a key: ignored whole */
    snprintf(text, sizeof text, "[gen]\npages = 300\n# %s pages = 7\n", filler);
    ck_assert_int_eq(parse(text, &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 300);
    /* so is a long inline comment */
    snprintf(text, sizeof text, "[gen]\npages = 300 ; %s pages = 7\n", filler);
    ck_assert_int_eq(parse(text, &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 300);
    /* line numbers count lines, not pieces of lines */
    snprintf(text, sizeof text, "[gen]\n; %s\n\npages = ten\n", filler);
    ck_assert_int_eq(parse(text, &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:4:"));
    /* a long value is read whole where inih's buffer can grow (Debian's libinih), or refused
     * naming its line: never cut */
    char value[1001];
    memset(value, 'p', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    snprintf(text, sizeof text, "[run]\nseed = 3\noutput = %s\n", value);
    cs_err rc = parse(text, &cfg);
    if (rc == CS_OK) {
        ck_assert_str_eq(cfg.run.output, value);
    } else {
        ck_assert_int_eq(rc, CS_ERR_CONFIG);
        ck_assert_ptr_nonnull(strstr(ctx.errmsg, "job.ini:3: line of 1009 characters"));
    }
    /* a line of every length around inih's default buffer */
    for (size_t n = 190; n < 210; n++) {
        snprintf(text, sizeof text, "[run]\noutput = %.*s\nseed = 5\n", (int)n, value);
        rc = parse(text, &cfg);
        ck_assert(rc == CS_OK || strstr(ctx.errmsg, "job.ini:2: line of") != NULL);
        if (rc == CS_OK) {
            ck_assert_uint_eq(strlen(cfg.run.output), n);
            ck_assert_int_eq(cfg.run.seed, 5);
        }
    }
}
END_TEST

/* Integers are decimal: a leading zero is not octal, hexadecimal is refused. */
START_TEST(integers_are_decimal)
{
    cs_config cfg;
    ck_assert_int_eq(parse("[gen]\npages = 010\n", &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 10);
    ck_assert_int_eq(parse("[gen]\npages = 0x10\n", &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "not an integer"));
    ck_assert_int_eq(parse("[gen]\npages = 0x1p4\n", &cfg), CS_ERR_CONFIG);
    ck_assert_int_eq(parse("[gen]\npages = 2e3\n", &cfg), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 2000);
}
END_TEST

START_TEST(validation_across_keys)
{
    cs_config cfg;
    ck_assert_int_eq(parse("[gen]\np_host = 0.7\np_topic = 0.4\n", &cfg), CS_OK);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "p_host + gen.p_topic"));
    ck_assert_int_eq(parse("[gen]\ntopics = 4\ntarget_topic = 4\n", &cfg), CS_OK);
    cs_ctx_clear_error(&ctx);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_ERR_CONFIG);
}
END_TEST

START_TEST(set_overrides)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    ck_assert_int_eq(cs_config_set(&ctx, &cfg, "gen.pages=42", "--set"), CS_OK);
    ck_assert_int_eq(cfg.gen.pages, 42);
    ck_assert_int_eq(cs_config_set(&ctx, &cfg, "import.edges=x y.gz", "--set"), CS_OK);
    ck_assert_str_eq(cfg.import.edges, "x y.gz");
    cs_ctx_clear_error(&ctx);
    ck_assert_int_eq(cs_config_set(&ctx, &cfg, "gen.pagez=1", "--set"), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "did you mean 'gen.pages'"));
    cs_ctx_clear_error(&ctx);
    ck_assert_int_eq(cs_config_set(&ctx, &cfg, "pages=1", "--set"), CS_ERR_USAGE);
    cs_ctx_clear_error(&ctx);
    ck_assert_int_eq(cs_config_set(&ctx, &cfg, "gen.pages", "--set"), CS_ERR_USAGE);
}
END_TEST

START_TEST(resolved_text_round_trips)
{
    cs_config a, b;
    ck_assert_int_eq(parse("[gen]\npages = 77\ndegree_mean = 0.1e2\n[import]\nseparators = |\\t\n"
                           "target_label = subject.Science\n",
                           &a),
                     CS_OK);
    char *text = NULL;
    ck_assert_int_eq(cs_config_to_ini(&ctx, &a, NULL, &text), CS_OK);
    ck_assert_int_eq(parse(text, &b), CS_OK);
    free(text);
    ck_assert_int_eq(memcmp(&a.gen, &b.gen, sizeof a.gen), 0);
    ck_assert_int_eq(memcmp(&a.import, &b.import, sizeof a.import), 0);
    /* blanks at either end of a string survive (the default separators start with one) */
    ck_assert_str_eq(b.import.page_separators, " \t");
    ck_assert_int_eq(parse("[import]\nseparators = \\s|\\s\n", &a), CS_OK);
    ck_assert_str_eq(a.import.separators, " | ");
    ck_assert_int_eq(cs_config_to_ini(&ctx, &a, NULL, &text), CS_OK);
    ck_assert_int_eq(parse(text, &b), CS_OK);
    free(text);
    ck_assert_str_eq(b.import.separators, " | ");
    /* a newline and a ';' after a blank (an inline comment when written as they are) */
    ck_assert_int_eq(parse("[import]\ntarget_label = a\\nb\\s;c;\n", &a), CS_OK);
    ck_assert_str_eq(a.import.target_label, "a\nb ;c;");
    ck_assert_int_eq(cs_config_to_ini(&ctx, &a, NULL, &text), CS_OK);
    ck_assert_int_eq(parse(text, &b), CS_OK);
    free(text);
    ck_assert_str_eq(b.import.target_label, "a\nb ;c;");
    /* control bytes cannot be written back: refused */
    ck_assert_int_eq(parse("[import]\ntarget_label = a\vb\n", &a), CS_ERR_CONFIG);
    ck_assert_msg(strstr(ctx.errmsg, "control character"), "%s", ctx.errmsg);
}
END_TEST

START_TEST(sarsa_alpha_auto)
{
    cs_config cfg;
    /* auto: the paper's 0.001 while 0.01 / B is not smaller, under sum */
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 10\n", &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_alpha(&cfg), 0.001);
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 1000\n", &cfg), CS_OK);
    ck_assert_double_eq_tol(cs_sarsa_alpha(&cfg), 1e-5, 1e-20);
    /* under average every rank's updates are online: the paper's step at any B */
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 1000\nweight_sync = average\n", &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_alpha(&cfg), 0.001);
    /* an explicit alpha is taken as given */
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 1000\n[sarsa]\nalpha = 0.003\n", &cfg), CS_OK);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_alpha(&cfg), 0.003);
    /* neither auto nor a number in [0, 1]: a configuration error naming the key */
    const char *bad[] = {"1.5", "-0.1", "fast", "0.1x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[64];
        snprintf(text, sizeof text, "[sarsa]\nalpha = %s\n", bad[i]);
        cs_err rc = parse(text, &cfg);
        if (rc == CS_OK)
            rc = cs_config_validate(&ctx, &cfg);
        ck_assert_int_eq(rc, CS_ERR_CONFIG);
        ck_assert_ptr_nonnull(strstr(ctx.errmsg, "sarsa.alpha"));
    }
}
END_TEST

START_TEST(sarsa_step_rules)
{
    cs_config cfg;
    /* fixed (the default): alpha at any rank count and window */
    ck_assert_int_eq(
        parse("[crawl]\nbandwidth = 64\nsync_every = 4\n[sarsa]\nalpha = 0.001\n", &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_step(&cfg, 4), 0.001);
    /* window under sum: alpha x K x B bounded by 0.01, whatever P */
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 64\nsync_every = 4\n[sarsa]\nalpha = 0.001\n"
                           "step_rule = window\n",
                           &cfg),
                     CS_OK);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_OK);
    for (int P = 1; P <= 7; P += 3)
        ck_assert_double_eq_tol(cs_sarsa_step(&cfg, P) * 4 * 64, 0.01, 1e-15);
    /* a window small enough keeps alpha */
    ck_assert_int_eq(
        parse("[crawl]\nbandwidth = 2\n[sarsa]\nalpha = 0.001\nstep_rule = window\n", &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_step(&cfg, 3), 0.001);
    /* window under average: the model moves by 1/P of the ranks' K x B updates */
    ck_assert_int_eq(parse("[crawl]\nbandwidth = 64\nsync_every = 16\nweight_sync = average\n"
                           "[sarsa]\nalpha = 0.001\nstep_rule = window\n",
                           &cfg),
                     CS_OK);
    ck_assert_double_eq_tol(cs_sarsa_step(&cfg, 4) * 16 * 64 / 4, 0.01, 1e-15);
    ck_assert_double_eq(cs_sarsa_step(&cfg, 1024), 0.001); /* 1 update a rank: alpha binds */
    /* window, never synchronised: the task's fetches are the window; without them, refused */
    ck_assert_int_eq(parse("[run]\npages = 5000\n[crawl]\nsync_every = 0\n[sarsa]\n"
                           "step_rule = window\n",
                           &cfg),
                     CS_OK);
    ck_assert_double_eq_tol(cs_sarsa_step(&cfg, 2), 0.01 / 5000, 1e-18);
    ck_assert_int_eq(parse("[crawl]\nsync_every = 0\n[sarsa]\nstep_rule = window\n", &cfg), CS_OK);
    ck_assert_int_eq(cs_config_validate(&ctx, &cfg), CS_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(ctx.errmsg, "step_rule"));
    /* ranks: alpha x P under average (at most 1), alpha under sum */
    ck_assert_int_eq(parse("[crawl]\nweight_sync = average\n[sarsa]\nalpha = 0.001\n"
                           "step_rule = ranks\n",
                           &cfg),
                     CS_OK);
    ck_assert_double_eq_tol(cs_sarsa_step(&cfg, 8), 0.008, 1e-18);
    ck_assert_double_eq(cs_sarsa_step(&cfg, 4096), 1.0);
    ck_assert_int_eq(parse("[sarsa]\nalpha = 0.001\nstep_rule = ranks\n", &cfg), CS_OK);
    ck_assert_double_eq(cs_sarsa_step(&cfg, 8), 0.001);
    ck_assert_int_eq(parse("[sarsa]\nstep_rule = scaled\n", &cfg), CS_ERR_CONFIG);
}
END_TEST

START_TEST(help_lists_every_key)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_config_print_help(f, NULL, 1);
    fclose(f);
    size_t n;
    const cs_conf_entry *s = cs_config_schema(&n);
    for (size_t i = 0; i < n; i++) {
        char want[128];
        snprintf(want, sizeof want, "| `%s` |", s[i].key);
        ck_assert_msg(strstr(buf, want) != NULL, "help misses %s", s[i].key);
    }
    free(buf);
}
END_TEST

START_TEST(edit_distance)
{
    ck_assert_uint_eq(cs_edit_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(cs_edit_distance("", "abc"), 3);
    ck_assert_uint_eq(cs_edit_distance("same", "same"), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, defaults_are_valid);
    tcase_add_test(tc, parses_every_type);
    tcase_add_test(tc, unknown_key_suggests_nearest);
    tcase_add_test(tc, bad_values_name_file_and_line);
    tcase_add_test(tc, long_lines_are_never_split);
    tcase_add_test(tc, integers_are_decimal);
    tcase_add_test(tc, validation_across_keys);
    tcase_add_test(tc, set_overrides);
    tcase_add_test(tc, resolved_text_round_trips);
    tcase_add_test(tc, sarsa_alpha_auto);
    tcase_add_test(tc, sarsa_step_rules);
    tcase_add_test(tc, help_lists_every_key);
    tcase_add_test(tc, edit_distance);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
