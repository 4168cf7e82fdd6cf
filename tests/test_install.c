/*  =========================================================================
    test_install - `cmake --install` of this build tree into a scratch
    prefix gives a drover a user can use: the executable (its --version the
    release), the shared library with its SONAME link and only the public
    API exported, the static library, the headers (each compiling on its
    own), drover.pc, the man pages (one per command, each rendering without
    a warning), bash completion (commands, options, subcommands) and the
    examples: drover.cfg, which the broker reads, and submit_wait.c, built
    with pkg-config against the installed library alone and run against a
    real broker and worker

    `test_install deb` (ctest: test_install_deb) runs the same tests on the
    Debian package instead: built with cpack from this tree and unpacked
    into a scratch root with dpkg-deb, its usr/ the prefix (and the root
    pkg-config's sysroot, PKG_CONFIG_SYSROOT_DIR, for drover.pc's /usr).
    =========================================================================
*/

#include "testutil_cluster.h"
#include "drover_msg.h"
#include <sys/stat.h>
#include <ctype.h>
#include <unistd.h>

//  The scratch directory, installed into once for every test, and the
//  prefix in it: itself, or the package's root/usr
static char s_scratch [] = "/tmp/drover-install-XXXXXX";
static char s_prefix [256];
static char s_libdir [PATH_MAX];        //  s_prefix/DROVER_INSTALL_LIBDIR
static bool s_from_package;             //  the Debian package, not cmake --install

//  Run `sh -c command` (stdin /dev/null) into out and err; the exit status
static int
s_sh (const char *command, char *out, size_t out_size, char *err, size_t err_size)
{
    const char *argv [] = { "/bin/sh", "-c", command, NULL };
    int status = testutil_run_cli (argv, out, out_size, err, err_size, 60000);
    if (!(status != -1 && WIFEXITED (status)))
        fail_msg ("sh -c '%s' did not exit: stdout %s stderr %s", command, out, err);
    return WEXITSTATUS (status);
}

//  Run a command that must exit 0 with nothing on stderr; its stdout in out
static void
s_sh_ok (const char *command, char *out, size_t out_size)
{
    char err [8192];
    int status = s_sh (command, out, out_size, err, sizeof err);
    if (status != 0 || *err)
        fail_msg ("sh -c '%s': exit %d, stdout '%s', stderr '%s'", command, status, out, err);
}

//  Install the build tree into the scratch prefix, once
static int
s_setup (void **state)
{
    assert_non_null (mkdtemp (s_scratch));
    char *command;
    if (s_from_package) {
        //  cpack says where it wrote the package: one .deb in out/
        snprintf (s_prefix, sizeof s_prefix, "%s/root/usr", s_scratch);
        command = zsys_sprintf ("cd '%s' && cpack -G DEB -B '%s/out' >/dev/null 2>&1"
                                " && dpkg-deb -x '%s'/out/drover_%s_*.deb '%s/root'",
                                DROVER_BUILD_DIR, s_scratch, s_scratch, DROVER_RELEASE,
                                s_scratch);
        //  The package's drover.pc says /usr: the root it is unpacked in is
        //  pkg-config's sysroot, as for any tree unpacked elsewhere
        char *sysroot = zsys_sprintf ("%s/root", s_scratch);
        setenv ("PKG_CONFIG_SYSROOT_DIR", sysroot, 1);
        zstr_free (&sysroot);
    }
    else {
        snprintf (s_prefix, sizeof s_prefix, "%s", s_scratch);
        command = zsys_sprintf ("'%s' --install '%s' --prefix '%s' >/dev/null",
                                DROVER_CMAKE, DROVER_BUILD_DIR, s_prefix);
    }
    snprintf (s_libdir, sizeof s_libdir, "%s/%s", s_prefix, DROVER_INSTALL_LIBDIR);
    char out [4096];
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    //  What the children find: the installed drover first, its library,
    //  its drover.pc
    char *path = zsys_sprintf ("%s/bin:%s", s_prefix, getenv ("PATH"));
    setenv ("PATH", path, 1);
    zstr_free (&path);
    setenv ("LD_LIBRARY_PATH", s_libdir, 1);
    char *pkgconfig = zsys_sprintf ("%s/pkgconfig", s_libdir);
    setenv ("PKG_CONFIG_PATH", pkgconfig, 1);
    zstr_free (&pkgconfig);
    return 0;
}

static int
s_teardown (void **state)
{
    testutil_remove_tree (s_scratch);
    return 0;
}

//  Assert prefix/relative is a regular file (or, if link_to, a symbolic
//  link to that name)
static void
s_assert_installed (const char *relative, const char *link_to)
{
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", s_prefix, relative);
    struct stat info;
    if (lstat (path, &info) != 0)
        fail_msg ("not installed: %s", relative);
    if (link_to) {
        char target [PATH_MAX] = "";
        ssize_t size = readlink (path, target, sizeof target - 1);
        if (size < 0)
            fail_msg ("%s: not a symbolic link", relative);
        target [size] = 0;
        assert_string_equal (target, link_to);
        assert_int_equal (stat (path, &info), 0);       //  and it leads somewhere
    }
    else
    if (!S_ISREG (info.st_mode) || info.st_size == 0)
        fail_msg ("%s: not a file, or empty", relative);
}

//  The commands the installed `drover --help` lists, one per line
static char *
s_commands (void)
{
    char out [65536];
    s_sh_ok ("drover --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit }"
             " on && /^  [a-z]/ && $1 != \"help\" { print $1 }'", out, sizeof out);
    assert_non_null (strstr (out, "submit\n"));
    return strdup (out);
}

//  ---------------------------------------------------------------------
//  The files, the executable, the libraries

static void
test_files_are_installed (void **state)
{
    char relative [PATH_MAX];
    s_assert_installed ("bin/drover", NULL);
    s_assert_installed ("bin/drover-worker", NULL);
    const char *headers [] = { "drover.h", "drover_client.h", "drover_codes.h",
        "drover_result.h", "drover_shares.h", "drover_submit.h", "drover_tasks.h",
        "drover_worker.h", "drover_workers.h", "drover_workflow.h", NULL };
    for (size_t index = 0; headers [index]; index++) {
        snprintf (relative, sizeof relative, "include/drover/%s", headers [index]);
        s_assert_installed (relative, NULL);
    }
    const char *library = "libdrover.so." DROVER_RELEASE;
    snprintf (relative, sizeof relative, "%s/%s", DROVER_INSTALL_LIBDIR, library);
    s_assert_installed (relative, NULL);
    snprintf (relative, sizeof relative, "%s/libdrover.so.%.*s", DROVER_INSTALL_LIBDIR,
              (int) strcspn (DROVER_RELEASE, "."), DROVER_RELEASE);
    s_assert_installed (relative, library);
    snprintf (relative, sizeof relative, "%s/libdrover.so", DROVER_INSTALL_LIBDIR);
    char soname [64];
    snprintf (soname, sizeof soname, "libdrover.so.%.*s",
              (int) strcspn (DROVER_RELEASE, "."), DROVER_RELEASE);
    s_assert_installed (relative, soname);
    snprintf (relative, sizeof relative, "%s/libdrover.a", DROVER_INSTALL_LIBDIR);
    s_assert_installed (relative, NULL);
    snprintf (relative, sizeof relative, "%s/pkgconfig/drover.pc", DROVER_INSTALL_LIBDIR);
    s_assert_installed (relative, NULL);
    s_assert_installed ("share/man/man1/drover.1.gz", NULL);
    s_assert_installed ("share/bash-completion/completions/drover", NULL);
    s_assert_installed ("share/doc/drover/examples/drover.cfg", NULL);
    s_assert_installed ("share/doc/drover/examples/submit_wait.c", NULL);
    s_assert_installed ("share/doc/drover/examples/Makefile", NULL);
    //  One man page per command
    char *commands = s_commands ();
    for (char *command = strtok (commands, "\n"); command; command = strtok (NULL, "\n")) {
        snprintf (relative, sizeof relative, "share/man/man1/drover-%s.1.gz", command);
        s_assert_installed (relative, NULL);
    }
    free (commands);
}

//  The installed drover and drover-worker say the release and the
//  protocol level
static void
test_installed_version (void **state)
{
    char out [4096];
    s_sh_ok ("cd / && drover --version", out, sizeof out);
    char expected [128];
    snprintf (expected, sizeof expected, "drover %s (protocol level %d)\n",
              DROVER_RELEASE, DROVER_MSG_LEVEL);
    assert_string_equal (out, expected);
    //  and that is the drover installed, not the build's
    s_sh_ok ("command -v drover", out, sizeof out);
    assert_int_equal (strncmp (out, s_prefix, strlen (s_prefix)), 0);
    //  The lean agent (drover-worker) says the same
    s_sh_ok ("cd / && drover-worker --version", out, sizeof out);
    assert_string_equal (out, expected);
    s_sh_ok ("command -v drover-worker", out, sizeof out);
    assert_int_equal (strncmp (out, s_prefix, strlen (s_prefix)), 0);
}

//  The shared library is named by its SONAME and exports the public API
//  only: the client's and the worker's functions, not the codec's or the
//  agent's
static void
test_shared_library_exports (void **state)
{
    char out [65536];
    char *command = zsys_sprintf ("objdump -p '%s/libdrover.so.%s' | awk '/SONAME/ { print $2 }'",
                                  s_libdir, DROVER_RELEASE);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    char expected [64];
    snprintf (expected, sizeof expected, "libdrover.so.%.*s\n",
              (int) strcspn (DROVER_RELEASE, "."), DROVER_RELEASE);
    assert_string_equal (out, expected);

    command = zsys_sprintf ("nm -D --defined-only '%s/libdrover.so' | awk '$2 == \"T\" { print $3 }'"
                            " | sed 's/@.*//' | sort", s_libdir);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    assert_non_null (strstr (out, "drover_client_new\n"));
    assert_non_null (strstr (out, "drover_client_wait\n"));
    assert_non_null (strstr (out, "drover_worker_new\n"));
    assert_null (strstr (out, "drover_msg_"));             //  the codec is private
    assert_null (strstr (out, "drover_agent_main"));       //  so is `drover worker`
    //  Every exported function is one the public headers declare
    command = zsys_sprintf ("for name in $(nm -D --defined-only '%s/libdrover.so' | awk '$2 == \"T\""
                            " { print $3 }' | sed 's/@.*//'); do grep -q \"^ *$name (\" '%s'/include/drover/*.h"
                            " || echo \"$name\"; done", s_libdir, s_prefix);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    if (*out)
        fail_msg ("exported but in no public header: %s", out);
}

//  Each installed header compiles on its own, from the installed tree
static void
test_headers_compile_alone (void **state)
{
    char out [8192];
    char *command = zsys_sprintf (
        "set -e; cd '%s'; for header in include/drover/*.h; do"
        " printf '#include <drover/%%s>\\nint main (void) { return 0; }\\n' \"${header##*/}\" > one.c;"
        " cc -std=gnu11 -Wall -Wextra -Werror $(pkg-config --cflags drover) -c one.c -o one.o;"
        " done; rm -f one.c one.o", s_prefix);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
}

//  ---------------------------------------------------------------------
//  The example client, built with pkg-config and run against a cluster

static void
test_example_against_a_broker (void **state)
{
    char out [65536];
    char err [8192];
    //  pkg-config names the scratch prefix
    s_sh_ok ("pkg-config --modversion drover", out, sizeof out);
    assert_string_equal (out, DROVER_RELEASE "\n");
    s_sh_ok ("pkg-config --cflags --libs drover", out, sizeof out);
    char *include = zsys_sprintf ("-I%s/include", s_prefix);
    assert_non_null (strstr (out, include));
    zstr_free (&include);

    //  Built with the command the example's comment shows, linked with
    //  the shared library
    char *command = zsys_sprintf (
        "cd '%s' && cc -Wall -Wextra -Werror share/doc/drover/examples/submit_wait.c"
        " -o submit_wait $(pkg-config --cflags --libs drover)"
        " && ldd submit_wait | grep libdrover", s_prefix);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    char *library = zsys_sprintf ("%s/libdrover.so.", s_libdir);
    if (!strstr (out, library))
        fail_msg ("submit_wait does not load %s: %s", library, out);
    zstr_free (&library);

    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "w-install", 1, NULL);
    command = zsys_sprintf ("'%s/submit_wait' --broker '%s' 'echo hello from the example'",
                            s_prefix, cluster->endpoint);
    int status = s_sh (command, out, sizeof out, err, sizeof err);
    zstr_free (&command);
    char *ran = NULL;
    if (status != 0 || !strstr (out, "hello from the example\n") || !strstr (out, "SUCCEEDED"))
        ran = zsys_sprintf ("submit_wait: exit %d, stdout '%s', stderr '%s'", status, out, err);
    //  A command that fails: its exit status and its stderr come back
    command = zsys_sprintf ("'%s/submit_wait' --broker '%s' 'echo oops >&2; exit 3'",
                            s_prefix, cluster->endpoint);
    status = s_sh (command, out, sizeof out, err, sizeof err);
    zstr_free (&command);
    if (!ran && (status != 3 || !strstr (err, "oops\n") || !strstr (out, "FAILED")))
        ran = zsys_sprintf ("submit_wait of a failing command: exit %d, stdout '%s', stderr '%s'",
                            status, out, err);
    testutil_cluster_destroy (&cluster);
    if (ran)
        fail_msg ("%s", ran);
}

//  ---------------------------------------------------------------------
//  Man pages, completion, the example settings

//  Every page renders with man, saying its name, without a warning
static void
test_man_pages_render (void **state)
{
    char out [65536];
    char *pages = zsys_sprintf ("ls '%s/share/man/man1'", s_prefix);
    char listing [8192];
    s_sh_ok (pages, listing, sizeof listing);
    zstr_free (&pages);
    size_t count = 0;
    for (char *page = strtok (listing, "\n"); page; page = strtok (NULL, "\n")) {
        char *command = zsys_sprintf ("MANWIDTH=80 man -l -P cat '%s/share/man/man1/%s'",
                                      s_prefix, page);
        s_sh_ok (command, out, sizeof out);            //  stderr empty: no warning
        zstr_free (&command);
        //  "DROVER-SUBMIT(1)" heads drover-submit.1.gz
        char title [128];
        snprintf (title, sizeof title, "%.*s(1)", (int) (strlen (page) - 5), page);
        for (char *letter = title; *letter; letter++)
            *letter = toupper (*letter);
        if (!strstr (out, title) || !strstr (out, "NAME") || !strstr (out, "SYNOPSIS"))
            fail_msg ("%s renders without its title %s, NAME or SYNOPSIS: %s", page, title, out);
        count++;
    }
    assert_true (count > 10);
}

//  The completion script parses, and completes commands, a command's
//  options and its subcommands from the installed drover
static void
test_bash_completion (void **state)
{
    char out [8192];
    char *script = zsys_sprintf ("%s/share/bash-completion/completions/drover", s_prefix);
    char *command = zsys_sprintf ("bash -n '%s'", script);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    command = zsys_sprintf (
        "bash -c 'source \"$0\"; complete -p drover;"
        " t () { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _drover;"
        " echo \"$*: ${COMPREPLY[*]}\"; };"
        " t drover ser; t drover submit --pri; t drover service \"\"; t drover --broker x sub' '%s'",
        script);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    zstr_free (&script);
    if (!strstr (out, "complete -o default -F _drover drover\n")
    ||  !strstr (out, "drover ser: service\n")
    ||  !strstr (out, "drover submit --pri: --priority\n")
    ||  !strstr (out, "drover service : create delete list scale show stats\n")
    ||  !strstr (out, "drover --broker x sub: submit\n"))
        fail_msg ("completion: %s", out);
}

//  The example settings are every setting, and the broker reads them
static void
test_example_settings (void **state)
{
    char out [65536];
    char expected [65536];
    s_sh_ok ("drover broker --print-config", expected, sizeof expected);
    char *command = zsys_sprintf ("grep -v '^#' '%s/share/doc/drover/examples/drover.cfg'",
                                  s_prefix);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    assert_string_equal (out, expected);
    command = zsys_sprintf ("drover broker -c '%s/share/doc/drover/examples/drover.cfg'"
                            " --print-config", s_prefix);
    s_sh_ok (command, out, sizeof out);
    zstr_free (&command);
    assert_string_equal (out, expected);
}

int
main (int argc, char **argv)
{
    s_from_package = argc > 1 && streq (argv [1], "deb");
    printf ("test_install: from %s\n", s_from_package? "the Debian package (cpack, dpkg-deb -x)"
                                                     : "cmake --install");
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_files_are_installed),
        cmocka_unit_test (test_installed_version),
        cmocka_unit_test (test_shared_library_exports),
        cmocka_unit_test (test_headers_compile_alone),
        cmocka_unit_test (test_example_against_a_broker),
        cmocka_unit_test (test_man_pages_render),
        cmocka_unit_test (test_bash_completion),
        cmocka_unit_test (test_example_settings),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
