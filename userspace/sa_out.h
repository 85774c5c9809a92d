// SPDX-License-Identifier: GPL-2.0
/*
 * sa_out - where the output goes: standard output, or -o FILE (and --svg
 * FILE) written into a temporary file FILE.XXXXXX in the same directory
 * and renamed over FILE once complete, so that readers never see half a
 * file; on an error FILE is left as it was.
 */
#ifndef SA_OUT_H
#define SA_OUT_H

/* Set the mode a new FILE gets: 0666 less the umask.  Call once. */
void sa_out_init(void);

/*
 * Send standard output to @path's temporary file (@path NULL: nothing
 * to do).  0, or -1 with a message on stderr.
 */
int sa_out_begin(const char *path);

/*
 * Finish: flush, and if @ok and all was written, rename the temporary
 * file over @path (else remove it); standard output is restored.  0, or
 * -1 (a message on stderr when the write or rename failed).
 */
int sa_out_end(const char *path, int ok);

#endif /* SA_OUT_H */
