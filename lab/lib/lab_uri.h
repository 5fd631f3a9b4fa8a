/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: pure functions of their arguments.
 *
 * libvirt URIs compared by what they reach, not by how they are spelled.
 *
 * Where the lab asks "is this the same host?" (two [host] sections on one
 * machine, the host that shares the guest lab's connection, a resumed
 * session's hosts against lab.conf, the embedded driver) a string compare
 * says "qemu:///system" and "qemu+unix:///system/" differ, and
 * "qemu+ssh://embed.example/system" contains "/embed". libvirt's own
 * parser (virURIParse) is not public API, so this is a small one of our
 * own for what libvirt's remote driver reads (docs: libvirt.org/uri.html):
 *
 *   driver[+transport]://[user@][host][:port]/path[?name=value&...][#frag]
 *
 * The identity keeps what picks the daemon and drops what only says how
 * to reach it: scheme and host lower-cased; a transport's default port
 * dropped (ssh, libssh, libssh2 22; tcp 16509; tls 16514); the default
 * transport written out or not ("+unix" without a host, "+tls" with one);
 * the user
 * kept only for a per-user daemon ("/session"); the path's repeated and
 * trailing slashes dropped; %XX escapes decoded in the path and the
 * parameters; the parameters sorted, without those that only say how to
 * connect (keyfile, known_hosts, known_hosts_verify, no_verify, no_tty,
 * sshauth, pkipath, tls_priority, command, netcat, mode, auth). Any other
 * parameter counts (socket, name, root, and those we do not know: unknown
 * means different, so two hosts are never taken for one by a guess).
 */
#ifndef LAB_URI_H
#define LAB_URI_H

/* The identity of @uri as a string (caller frees); NULL when it is not "scheme://...". */
char *lab_uri_identity(const char *uri);
/*
 * Do @a and @b reach the same daemon? By identity; a string that is not a
 * URI equals only itself. NULL equals nothing.
 */
int lab_uri_same(const char *a, const char *b);
/* Is @uri libvirt's embedded QEMU driver ("qemu:///embed", with or without ?root=)? */
int lab_uri_is_embedded(const char *uri);

#endif
