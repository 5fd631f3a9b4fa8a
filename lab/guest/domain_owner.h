/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who started a lab domain: the owner tag in its <metadata>, and the rule
 * that decides whether a domain named like the lab's is an orphan of ours
 * to destroy, someone else's to leave alone, or still in use.
 *
 * Why a tag and not the pid in the name ("mglrulab-<pid>-<n>"): a pid is a
 * pid of one PID namespace on one machine in one boot. On a libvirt daemon
 * that several jobs share (qemu:///system on a CI host, containers with
 * their own PID namespaces, another controller over qemu+ssh), the pid in
 * another job's domain name may be a dead process here, and destroying by
 * it destroys that job's guests. The tag names the machine
 * (/etc/machine-id), the boot (/proc/sys/kernel/random/boot_id), the PID
 * namespace (the inode of /proc/self/ns/pid), the pid, the process's start
 * time (field 22 of /proc/PID/stat, so a reused pid is seen as another
 * process) and the lab's state folder.
 *
 *   <metadata>
 *     <mglrulab:owner xmlns:mglrulab='urn:x-mglrulab:owner:1' machine='...'
 *         boot='...' pidns='...' pid='...' start='...' state='...'/>
 *   </metadata>
 */
#ifndef LAB_DOMAIN_OWNER_H
#define LAB_DOMAIN_OWNER_H

#include "util.h"
#include "strbuf.h"

#define DOMAIN_OWNER_NS "urn:x-mglrulab:owner:1"
#define DOMAIN_OWNER_PREFIX "mglrulab"

struct domain_owner {
	char machine[64];		/* /etc/machine-id; "" when unknown */
	char boot[64];			/* boot_id; "" when unknown */
	char pidns[32];			/* the PID namespace's inode number, as text */
	long pid;
	unsigned long long start;	/* clock ticks after boot the process started */
	char *state;			/* the lab state folder, absolute; NULL: none */
};

/*
 * This process as an owner, with state folder @state_dir (made absolute;
 * NULL: none). Fields that cannot be read stay empty: such a tag is never
 * judged ours, so nothing is destroyed on a guess.
 */
void domain_owner_self(struct domain_owner *o, const char *state_dir);
void domain_owner_release(struct domain_owner *o);

/* The <metadata> element with @o's tag, each line after @indent. */
void domain_owner_xml(const struct domain_owner *o, const char *indent, struct strbuf *sb);

/*
 * Find the tag in @xml: a domain's XML (virDomainGetXMLDesc()) or the
 * embedded driver's status file of it, as libvirt formats them. 0 with
 * @o filled (release it), -1 when there is none, or none this parser
 * reads (then nothing is judged ours: a domain is left alone).
 */
LAB_MUST_CHECK
int domain_owner_find(const char *xml, struct domain_owner *o);

enum domain_owner_verdict {
	OWNER_UNTAGGED,		/* no tag: not the lab's, or from before tags; left alone */
	OWNER_ELSEWHERE,	/* another machine, boot or PID namespace: not ours to judge */
	OWNER_LIVE,		/* its mglrulab still runs (or it is this process) */
	OWNER_GONE,		/* its mglrulab is gone: an orphan of ours */
};

/*
 * How @start_of finds a process's start time: 0 with *@start, or -1 when
 * no such process runs (a zombie counts as gone).
 */
typedef int domain_owner_start_fn(long pid, unsigned long long *start);
LAB_MUST_CHECK
int domain_owner_proc_start(long pid, unsigned long long *start);

/*
 * Judge a domain tagged @tag (NULL: untagged) from process @self. A tag of
 * this machine and boot is ours when its PID namespace is ours and its pid
 * is dead or now another process (@start_of), or when @state_locked (this
 * process holds @self's state folder lock, so nobody else uses it) and the
 * tag names @self's state folder. The reason, for messages, in @why.
 */
enum domain_owner_verdict domain_owner_judge(const struct domain_owner *tag,
					     const struct domain_owner *self, int state_locked,
					     domain_owner_start_fn *start_of, struct strbuf *why);

#endif
