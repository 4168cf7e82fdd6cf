/*  =========================================================================
    test_actors_doc - actors/ACTORS.md's tables of who hears what agree with
    the broker's routing table (src/broker/core/drover_routing.c)

    The routing table is the one answer to "who hears X"; the document
    says it in words. This test reads the document's tables (the actors,
    the wire messages, the commands) and holds each row to the code's, both
    ways: a row the code has and the document lacks, or says otherwise, or
    one the document has and the code does not, fails with the row named.
    =========================================================================
*/

#include <czmq.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drover_routing.h"

#define S_DOC   DROVER_SOURCE_DIR "/actors/ACTORS.md"

//  The document's rows of one table: first column's name -> the other
//  columns that the code decides, "\t"-joined
typedef struct {
    zhashx_t *actors;           //  actor name -> its row number, "1", "2"...
    zhashx_t *wire;             //  wire message -> "senders\thearer"
    zhashx_t *commands;         //  command word -> hearers
} s_doc_t;

//  Read the whole document
static char *
s_read_doc (void)
{
    FILE *file = fopen (S_DOC, "r");
    assert_non_null (file);
    fseek (file, 0, SEEK_END);
    long size = ftell (file);
    fseek (file, 0, SEEK_SET);
    char *text = (char *) malloc ((size_t) size + 1);
    assert_non_null (text);
    assert_int_equal (fread (text, 1, (size_t) size, file), (size_t) size);
    text [size] = 0;
    fclose (file);
    return text;
}

//  Split a table row into at most max cells, trimmed of spaces and of the
//  backticks around command words; returns the cells found
static size_t
s_cells (char *line, char **cells, size_t max)
{
    size_t count = 0;
    char *cursor = line + 1;            //  past the leading '|'
    while (count < max) {
        char *bar = strchr (cursor, '|');
        if (!bar)
            break;
        *bar = 0;
        while (*cursor == ' ')
            cursor++;
        char *end = cursor + strlen (cursor);
        while (end > cursor && end [-1] == ' ')
            *--end = 0;
        cells [count++] = cursor;
        cursor = bar + 1;
    }
    return count;
}

//  Drop the backticks of a cell, in place
static void
s_unquote (char *cell)
{
    char *to = cell;
    for (char *from = cell; *from; from++)
        if (*from != '`')
            *to++ = *from;
    *to = 0;
}

//  Put each name of a ", "-joined cell in hash, each with a copy of value;
//  value is ours
static void
s_add_names (zhashx_t *hash, char *cell, char *value)
{
    s_unquote (cell);
    char *saveptr = NULL;
    for (char *name = strtok_r (cell, ",", &saveptr); name; name = strtok_r (NULL, ",", &saveptr)) {
        while (*name == ' ')
            name++;
        if (zhashx_lookup (hash, name))
            fail_msg ("ACTORS.md names %s in two rows", name);
        zhashx_insert (hash, name, strdup (value));
    }
    zstr_free (&value);
}

//  Read the document's three tables
static void
s_doc_load (s_doc_t *doc, char *text)
{
    doc->actors = zhashx_new ();
    doc->wire = zhashx_new ();
    doc->commands = zhashx_new ();
    zhashx_set_destructor (doc->wire, (zhashx_destructor_fn *) zstr_free);
    zhashx_set_destructor (doc->commands, (zhashx_destructor_fn *) zstr_free);
    zhashx_set_destructor (doc->actors, (zhashx_destructor_fn *) zstr_free);
    enum { NONE, ACTORS, WIRE, COMMANDS } table = NONE;
    int actor_row = 0;
    char *saveptr = NULL;
    for (char *line = strtok_r (text, "\n", &saveptr); line;
         line = strtok_r (NULL, "\n", &saveptr)) {
        if (line [0] != '|') {
            table = NONE;               //  a table ends at its first other line
            continue;
        }
        char *cells [5];
        size_t count = s_cells (line, cells, 5);
        if (count >= 1 && strspn (cells [0], "-") == strlen (cells [0]))
            continue;                   //  the rule under a header
        if (count >= 2 && streq (cells [0], "actor") && streq (cells [1], "thread code"))
            table = ACTORS;
        else
        if (count >= 3 && streq (cells [0], "message") && streq (cells [1], "sent by")
        &&  streq (cells [2], "to"))
            table = WIRE;
        else
        if (count >= 3 && streq (cells [0], "command") && streq (cells [1], "said by")
        &&  streq (cells [2], "heard by"))
            table = COMMANDS;
        else
        if (table == ACTORS && count >= 1)
            s_add_names (doc->actors, cells [0], zsys_sprintf ("%d", actor_row++));
        else
        if (table == WIRE && count >= 3)
            s_add_names (doc->wire, cells [0], zsys_sprintf ("%s\t%s", cells [1], cells [2]));
        else
        if (table == COMMANDS && count >= 3)
            s_add_names (doc->commands, cells [0], strdup (cells [2]));
    }
}

//  Destroy what s_doc_load read
static void
s_doc_destroy (s_doc_t *doc)
{
    zhashx_destroy (&doc->actors);
    zhashx_destroy (&doc->wire);
    zhashx_destroy (&doc->commands);
}

//  Compare the document with the routing table both ways (deleting each
//  row of doc it matched); each mismatch is printed, and counted
static int
s_compare (s_doc_t *doc)
{
    int wrong = 0;
    char name [64], hearers [256], senders [32];
    for (size_t index = 0;
         drover_routing_describe (index, name, sizeof name, hearers, sizeof hearers,
                                 senders, sizeof senders); index++) {
        bool wire = *senders != 0;
        zhashx_t *hash = wire? doc->wire: doc->commands;
        char *expected = wire? zsys_sprintf ("%s\t%s", senders, hearers): strdup (hearers);
        const char *said = (const char *) zhashx_lookup (hash, name);
        if (!said) {
            print_message ("ACTORS.md lacks %s %s (code: %s)\n", wire? "message": "command",
                           name, expected);
            wrong++;
        }
        else
        if (strcmp (said, expected)) {
            print_message ("ACTORS.md says %s: \"%s\", the routing table \"%s\"\n", name, said,
                           expected);
            wrong++;
        }
        zhashx_delete (hash, name);
        zstr_free (&expected);
    }
    zhashx_t *hashes [] = { doc->wire, doc->commands };
    for (size_t index = 0; index < 2; index++)
        for (void *value = zhashx_first (hashes [index]); value;
             value = zhashx_next (hashes [index])) {
            print_message ("ACTORS.md routes %s, which the routing table does not\n",
                           (const char *) zhashx_cursor (hashes [index]));
            wrong++;
        }
    return wrong;
}

//  Every row of the routing table is in the document as the code has
//  it, and the document routes nothing the code does not
static void
test_routes_agree (void **state)
{
    (void) state;
    char *text = s_read_doc ();
    s_doc_t doc;
    s_doc_load (&doc, text);
    assert_true (zhashx_size (doc.wire) > 0);
    assert_true (zhashx_size (doc.commands) > 0);
    int wrong = s_compare (&doc);
    s_doc_destroy (&doc);
    free (text);
    assert_int_equal (wrong, 0);
}

//  The document's table of actors names the broker's actors, in the
//  order of their index, and no other
static void
test_actors_agree (void **state)
{
    (void) state;
    char *text = s_read_doc ();
    s_doc_t doc;
    s_doc_load (&doc, text);
    size_t count = 0;
    for (const char *name; (name = drover_routing_actor_name (count)); count++) {
        const char *row = (const char *) zhashx_lookup (doc.actors, name);
        if (!row)
            fail_msg ("ACTORS.md's table of actors lacks %s", name);
        assert_int_equal (atoi (row), (int) count);
    }
    assert_int_equal (zhashx_size (doc.actors), count);
    s_doc_destroy (&doc);
    free (text);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_routes_agree),
        cmocka_unit_test (test_actors_agree),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
