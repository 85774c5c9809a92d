// SPDX-License-Identifier: GPL-2.0
/*
 * sa_leak_b: sa_leak built as another module (the same code and size),
 * loaded where sa_leak was to show that it never joins sa_leak's rows.
 */
#include "sa_leak.c"
