/*  =========================================================================
    drover_cli_top - `drover top`: a full-screen live view of the broker,
    refreshed every --delay seconds (1): the header (broker, time, workers
    by health, procs, tasks, submit and finish rates), the workers and the
    queue by priority. q quits; the screen follows the terminal's size; an
    unreachable broker is said on screen and asked again at each refresh.
    What is shown and where is drover_topview's (src/client), tested
    without a terminal; this file asks the broker and draws with ncurses.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_topview.h"
#include <curses.h>
#include <unistd.h>

//  Queued rows asked for each refresh (the queue pane shows what fits)
#define S_QUEUED_MAX    500

//  Print top's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover top [-d|--delay SECONDS]\n"
        "\n"
        "A full-screen live view of the broker, refreshed every SECONDS (default 1):\n"
        "the header (broker, time, workers ok / probation / low disk / lost, held and\n"
        "draining, procs used/total, tasks by state, tasks submitted and finished per\n"
        "second), the workers (health, admin state, procs used/total, load, running\n"
        "tasks) and the queued tasks by priority; with an elastic pool, its\n"
        "instances by state and its price per hour. q quits. An unreachable broker is\n"
        "said on screen and asked again at each refresh. Needs a terminal.\n"
        "  -d, --delay SECONDS   between refreshes (0.1 to 3600)\n"
        "  --broker ENDPOINT, --broker-timeout SECONDS   as for every command\n");
}

//  Ask the broker for one refresh; on failure the view says why
static void
s_refresh (drover_client_t *client, drover_topview_t *view)
{
    drover_msg_t *workers = drover_client_worker_table (client);
    drover_msg_t *queued = workers? drover_client_task_table (client, DROVER_TASK_QUEUED,
                                                              S_QUEUED_MAX, NULL, 0): NULL;
    drover_msg_t *newest = queued? drover_client_task_table (client, 255, 1, NULL, 0): NULL;
    if (newest) {
        drover_topview_update (view, &workers, &queued,
                               newest->nrows? newest->task_rows [0].task: 0,
                               zclock_mono (), zclock_time ());
        //  A broker before the pool answers POOL LIST 415: no pool line
        drover_msg_t *pool = drover_client_pool (client);
        drover_topview_set_pool (view, &pool);
    }
    else
        drover_topview_set_error (view, drover_client_error_text (client), zclock_time ());
    drover_msg_destroy (&workers);
    drover_msg_destroy (&queued);
    drover_msg_destroy (&newest);
}

//  Draw the view for the terminal's size
static void
s_draw (drover_topview_t *view)
{
    erase ();
    size_t lines = drover_topview_render (view, COLS, LINES);
    for (size_t index = 0; index < lines; index++) {
        drover_topview_style_t style = drover_topview_style (view, index);
        attr_t attribute = style == DROVER_TOPVIEW_TITLE? A_BOLD
                         : style == DROVER_TOPVIEW_COLUMNS? A_REVERSE
                         : style == DROVER_TOPVIEW_ALERT? A_BOLD | A_STANDOUT: A_NORMAL;
        attron (attribute);
        mvaddstr ((int) index, 0, drover_topview_line (view, index));
        attroff (attribute);
    }
    refresh ();
}

//  drover top
int
drover_cli_top (int argc, char **argv)
{
    static struct option long_options [] = {
        { "delay", required_argument, NULL, 'd' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    uint32_t delay = 1000;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hd:", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 'd') {
            if (drover_cli_parse_seconds ("top", "--delay", optarg, 3600, &delay))
                return DROVER_EXIT_USAGE;
            if (delay < 100)
                return drover_cli_usage_error ("top", "--delay: at least 0.1 seconds");
        }
        else {
            int rc = drover_cli_common_option ("top", option, argv);
            if (rc)
                return rc;
        }
    }
    if (optind < argc)
        return drover_cli_usage_error ("top", "unexpected argument '%s'", argv [optind]);
    if (!isatty (STDIN_FILENO) || !isatty (STDOUT_FILENO)) {
        fprintf (stderr, "drover top: needs a terminal (for a snapshot: drover status, "
                 "drover workers, drover tasks)\n");
        return DROVER_EXIT_USAGE;
    }
    drover_client_t *client = drover_cli_connect ("top");
    if (!client)
        return DROVER_EXIT_USAGE;
    //  Keys stay live while the broker is slow: wait at most a refresh or
    //  a second for each reply, whichever is longer
    int reply_wait = (int) MAX (delay, 1000);
    drover_client_set_timeout (client, MIN (drover_cli_globals.timeout, reply_wait));
    drover_topview_t *view = drover_topview_new (drover_client_endpoint (client));

    initscr ();
    cbreak ();
    noecho ();
    keypad (stdscr, TRUE);
    curs_set (0);
    int64_t next = 0;               //  msec monotonic of the next refresh
    while (!zsys_interrupted) {
        int64_t now = zclock_mono ();
        if (now >= next) {
            s_refresh (client, view);
            next = zclock_mono () + delay;
            s_draw (view);
        }
        timeout ((int) MAX (next - zclock_mono (), 0));
        int key = getch ();
        if (key == 'q' || key == 'Q')
            break;
        if (key == KEY_RESIZE)
            s_draw (view);
    }
    endwin ();
    drover_topview_destroy (&view);
    drover_client_destroy (&client);
    return zsys_interrupted? DROVER_EXIT_INTERRUPTED: DROVER_EXIT_OK;
}
