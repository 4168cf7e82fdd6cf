/*  =========================================================================
    drover_cli_table - how the subcommands print for people: aligned tables,
    wall-clock times and durations (drover workers, tasks, show, pool)
    =========================================================================
*/

#include "drover_cli.h"

//  Start an empty table of columns (at most DROVER_CLI_TABLE_COLUMNS)
void
drover_cli_table_init (drover_cli_table_t *table, int columns)
{
    assert (columns >= 1 && columns <= DROVER_CLI_TABLE_COLUMNS);
    memset (table, 0, sizeof *table);
    table->columns = columns;
}

//  Add a row of columns strings (copied)
void
drover_cli_table_add (drover_cli_table_t *table, const char **cells)
{
    if (table->rows == table->capacity) {
        table->capacity = table->capacity? table->capacity * 2: 32;
        table->cells = (char **) realloc (table->cells,
                                          table->capacity * table->columns * sizeof (char *));
        assert (table->cells);
    }
    for (int column = 0; column < table->columns; column++)
        table->cells [table->rows * table->columns + column] = strdup (cells [column]);
    table->rows++;
}

//  Print the table, columns as wide as their widest cell, and free its cells
void
drover_cli_table_print (drover_cli_table_t *table)
{
    int widths [DROVER_CLI_TABLE_COLUMNS] = { 0 };
    for (size_t row = 0; row < table->rows; row++)
        for (int column = 0; column < table->columns; column++) {
            int width = (int) strlen (table->cells [row * table->columns + column]);
            widths [column] = width > widths [column]? width: widths [column];
        }
    for (size_t row = 0; row < table->rows; row++) {
        for (int column = 0; column < table->columns; column++) {
            char *cell = table->cells [row * table->columns + column];
            if (column == table->columns - 1)
                printf ("%s\n", cell);
            else
                printf ("%-*s  ", widths [column], cell);
            free (cell);
        }
    }
    free (table->cells);
    table->cells = NULL;
}

//  Format a wall-clock time (msec since the epoch) as ISO 8601: local time
//  with the UTC offset ("2026-11-24T06:20:01.123+01:00"), or UTC with a Z;
//  "" for 0 (never)
void
drover_cli_iso_time (int64_t msec, bool utc, char *buffer, size_t size)
{
    buffer [0] = 0;
    if (msec == 0)
        return;
    time_t seconds = (time_t) (msec / 1000);
    struct tm parts;
    if (utc)
        gmtime_r (&seconds, &parts);
    else
        localtime_r (&seconds, &parts);
    char date [32];
    strftime (date, sizeof date, "%Y-%m-%dT%H:%M:%S", &parts);
    if (utc) {
        snprintf (buffer, size, "%s.%03dZ", date, (int) (msec % 1000));
        return;
    }
    char zone [8];
    strftime (zone, sizeof zone, "%z", &parts);         //  "+0100"
    snprintf (buffer, size, "%s.%03d%.3s:%.2s", date, (int) (msec % 1000), zone, zone + 3);
}

//  Format a duration in msec in human units: "0.4s", "12.5s", "3m04s",
//  "2h05m09s", "3d04h12m"
void
drover_cli_duration (int64_t msec, char *buffer, size_t size)
{
    if (msec < 0)
        msec = 0;
    int64_t seconds = msec / 1000;
    if (msec < 60000)
        snprintf (buffer, size, "%.1fs", msec / 1000.0);
    else
    if (seconds < 3600)
        snprintf (buffer, size, "%dm%02ds", (int) (seconds / 60), (int) (seconds % 60));
    else
    if (seconds < 86400)
        snprintf (buffer, size, "%dh%02dm%02ds", (int) (seconds / 3600),
                  (int) (seconds / 60 % 60), (int) (seconds % 60));
    else
        snprintf (buffer, size, "%dd%02dh%02dm", (int) (seconds / 86400),
                  (int) (seconds / 3600 % 24), (int) (seconds / 60 % 60));
}
