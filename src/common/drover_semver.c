/*  =========================================================================
    drover_semver - release strings ("0.7.0"): read and ordered (see the
    header)
    =========================================================================
*/

#include "drover_semver.h"

#define S_PART_MAX      999999      //  a part larger than this is not a release

//  Read one decimal part at *at_p (1..6 digits, no sign); -1 if none
static int
s_part (const char **at_p, uint32_t *part)
{
    const char *at = *at_p;
    uint32_t value = 0;
    int digits = 0;
    while (isdigit ((unsigned char) *at) && digits < 7) {
        value = value * 10 + (uint32_t) (*at++ - '0');
        digits++;
    }
    if (digits == 0 || value > S_PART_MAX)
        return -1;
    *part = value;
    *at_p = at;
    return 0;
}

//  Read MAJOR.MINOR[.PATCH] at text; *end_p is where it stops
static int
s_numbers (const char *text, drover_semver_t *semver, const char **end_p)
{
    assert (text && semver);
    memset (semver, 0, sizeof *semver);
    const char *at = text;
    if (s_part (&at, &semver->major) || *at++ != '.' || s_part (&at, &semver->minor))
        return -1;
    if (*at == '.') {
        at++;
        if (s_part (&at, &semver->patch))
            return -1;
    }
    *end_p = at;
    return 0;
}

//  Read a release as a peer says it
int
drover_semver_parse (const char *text, drover_semver_t *semver)
{
    const char *end;
    if (s_numbers (text, semver, &end))
        return -1;
    if (*end == '-')
        semver->pre = true;
    else
    if (*end && *end != '+')
        return -1;              //  "0.7x": not a release
    return 0;
}

//  Tell whether text is a plain release
bool
drover_semver_plain (const char *text)
{
    drover_semver_t semver;
    const char *end;
    return text && s_numbers (text, &semver, &end) == 0 && *end == 0;
}

//  Order two releases
int
drover_semver_compare (const drover_semver_t *left, const drover_semver_t *right)
{
    assert (left && right);
    if (left->major != right->major)
        return left->major < right->major? -1: 1;
    if (left->minor != right->minor)
        return left->minor < right->minor? -1: 1;
    if (left->patch != right->patch)
        return left->patch < right->patch? -1: 1;
    if (left->pre != right->pre)
        return left->pre? -1: 1;
    return 0;
}
