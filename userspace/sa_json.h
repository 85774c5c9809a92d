// SPDX-License-Identifier: GPL-2.0
/*
 * sa_json - the one JSON writer (as bpftool's json_writer): objects and
 * arrays nested on a stack, each either a block (one member per line,
 * indented) or inline (members separated by ", "), keys and strings
 * escaped by sa_esc.  Every JSON document of the reader is written here.
 */
#ifndef SA_JSON_H
#define SA_JSON_H

#include <stdint.h>
#include <stdio.h>

/*
 * The deepest nesting a document may have: sa_json_open() beyond it, or a
 * close or a member with nothing open, stops the program with a message
 * on stderr (abort()), a bug of the reader, never of its input.
 */
#define SA_JSON_DEPTH 8

struct sa_json {
	FILE *fp;
	int depth;
	struct {
		char close;	/* '}' or ']' */
		int block;	/* one member per line */
		int count;	/* members so far */
	} s[SA_JSON_DEPTH];
};

/* Start a document on @fp: a block object. */
void sa_json_begin(struct sa_json *j, FILE *fp);
/* End it: the closing brace and a newline. */
void sa_json_end(struct sa_json *j);

/*
 * The next member: its key (NULL in an array), after the separator a
 * block or inline container writes; @sep, when not NULL, is written as the
 * separator instead of the usual one (", " or ",\n  ...").
 */
void sa_json_key(struct sa_json *j, const char *key);
void sa_json_key_sep(struct sa_json *j, const char *key, const char *sep);

/* Open an object ('{') or array ('[') as the value of the last key. */
void sa_json_open(struct sa_json *j, char open, int block);
void sa_json_close(struct sa_json *j);

/* Values. */
void sa_json_str(struct sa_json *j, const char *s);
void sa_json_u64(struct sa_json *j, uint64_t v);
void sa_json_raw(struct sa_json *j, const char *s);	/* a number as text */

/* Members: a key and its value. */
void sa_json_kstr(struct sa_json *j, const char *key, const char *s);
void sa_json_ku64(struct sa_json *j, const char *key, uint64_t v);
/* An inline array of @n numbers. */
void sa_json_klist(struct sa_json *j, const char *key, const uint64_t *v, size_t n);
/* The same array as the value of the last key. */
void sa_json_klist_value(struct sa_json *j, const uint64_t *v, size_t n);

#endif /* SA_JSON_H */
