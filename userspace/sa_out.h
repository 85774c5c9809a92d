// SPDX-License-Identifier: GPL-2.0
/*
 * sa_out - where the output goes: standard output, or -o FILE (and --svg
 * FILE).  FILE is opened as the shell's `>` opens it, by the kernel, so
 * that what `>` would refuse this user (permissions, fs.protected_symlinks,
 * protected_regular, protected_fifos) is refused.  A regular file is then
 * replaced atomically: written into a temporary FILE.XXXXXX in the
 * directory that holds it and renamed over it once complete (readers never
 * see half a file; on an error FILE is left as it was), with FILE's mode
 * and owner kept; a new FILE is created empty first, as `>` creates it, and
 * removed if the output fails.  A symbolic link the kernel follows has its
 * target replaced so.  Anything else (a FIFO, a device, a file with other
 * hard links, a file whose directory cannot be written or whose owner
 * cannot be kept) is written in place, never replaced; a directory is
 * refused.  SIGHUP, SIGINT, SIGQUIT or SIGTERM removes the temporary file
 * before slabacct dies of it.
 */
#ifndef SA_OUT_H
#define SA_OUT_H

/*
 * Set the mode a new FILE gets: 0666 less the umask, and hold the numbers of
 * standard input, output and error when they are closed.  Call once, before
 * any file is opened.
 */
void sa_out_init(void);

/*
 * Send standard output to @path (NULL: nothing to do).  0, or -1 with a
 * message on stderr.
 */
int sa_out_begin(const char *path);

/*
 * Finish: flush, and if @ok and all was written, rename the temporary
 * file over its target (else remove it); standard output is restored.
 * 0, or -1 (a message on stderr when the write or rename failed).
 */
int sa_out_end(const char *path, int ok);

/*
 * Flush standard output: 0, or -1 after saying "write error" on stderr
 * (its error then cleared, so that it is said once).
 */
int sa_out_flush(void);

#endif /* SA_OUT_H */
