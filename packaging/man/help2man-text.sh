#!/bin/sh
#   help2man-text.sh DROVER [COMMAND] --help|--version
#
#   Runs `DROVER [COMMAND] --help` (or --version) and gives its text in the
#   shape help2man(1) reads, changing the layout only, never the words: the
#   paragraphs of usage lines ("usage: drover ...", and each paragraph whose
#   lines are "  drover ...") become one "Usage:" line and "or:" lines, a
#   long usage line wrapped over several lines ("   [--flag ...") joined
#   again, so that they make the page's SYNOPSIS; options right under them,
#   or under "options:", make the OPTIONS section. The man pages (packaging/man/CMakeLists.txt) are made from
#   this and nothing else, so a page says what --help says.
set -eu
drover="$1"
shift
"$drover" "$@" | awk '
    function flush_paragraph (    index_, line, out) {
        if (lines == 0)
            return
        first = 1
        if (lines_usage) {
            out = ""
            for (index_ = 1; index_ <= lines; index_++) {
                line = text [index_]
                sub (/^usage: +/, "", line)
                if (line ~ /^ *drover /) {
                    if (out != "")
                        synopsis [++synopses] = out
                    sub (/^ +/, "", line)
                    out = line
                }
                else
                if (line ~ /^ +\[/) {
                    sub (/^ +/, "", line)
                    out = out " " line
                }
                else
                    break
            }
            if (out != "")
                synopsis [++synopses] = out
            first = index_
            #   Options right under the usage lines: the OPTIONS section
            if (first <= lines && text [first] ~ /^ +-/)
                body [++bodies] = "Options:"
        }
        if (first <= lines) {
            for (index_ = first; index_ <= lines; index_++)
                body [++bodies] = text [index_]
            body [++bodies] = ""
        }
        lines = 0
    }
    /^$/ { flush_paragraph(); next }
    {
        if (lines == 0)
            lines_usage = ($0 ~ /^usage: / || $0 ~ /^ +drover /)
        text [++lines] = $0
    }
    END {
        flush_paragraph()
        for (index_ = 1; index_ <= synopses; index_++)
            print (index_ == 1? "Usage: ": "   or: ") synopsis [index_]
        if (synopses)
            print ""
        for (index_ = 1; index_ <= bodies; index_++) {
            line = body [index_]
            if (line == "options:")
                line = "Options:"
            print line
        }
    }'
