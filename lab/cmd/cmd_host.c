// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab host upload: put a kernel or the guest image on the lab's hosts
 * through their libvirt connections (host_volume.h), as a session will
 * before its first run there; with --overlay, also a run's overlay disk.
 */
#include "cmd.h"
#include "config.h"
#include "escape.h"
#include "host.h"
#include "host_volume.h"
#include "xjson.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host_opts {
	const char *config, *state, *host, *overlay;
	int kind, json, keep_overlay;
};

static const struct lab_choice kind_choices[] = {
	{ "kernel", HOST_VOL_KERNEL }, { "image", HOST_VOL_IMAGE }, { NULL },
};

static const struct lab_option host_options[] = {
	CMD_OPT_CONFIG(struct host_opts, config),
	LAB_OPT_STRING("state", 0, struct host_opts, state, "DIR",
		       "lab state folder for the embedded host (default: lab.conf's state_dir)"),
	LAB_OPT_STRING("host", 0, struct host_opts, host, "NAME", "only this [host] (default: every [run] host)"),
	LAB_OPT_CHOICE("kind", 0, struct host_opts, kind, kind_choices, "KIND",
		       "kernel (default) or image"),
	LAB_OPT_STRING("overlay", 0, struct host_opts, overlay, "NAME",
		       "then create a run's overlay volume NAME on the image, and delete it again"),
	LAB_OPT_BOOL("keep-overlay", 0, struct host_opts, keep_overlay,
		     "leave the --overlay volume on the host"),
	LAB_OPT_BOOL("json", 0, struct host_opts, json, "machine-readable output"),
	LAB_OPT_END
};

static const char *const host_synopsis[] = {
	"mglrulab host upload [-c FILE] [--host NAME] [--kind kernel|image] [--overlay NAME]\n"
	"                     [--keep-overlay] [--json] FILE",
	NULL
};

const struct lab_usage host_usage = {
	.synopsis = host_synopsis,
	.description =
		"upload  Put FILE into the storage pool of every [run] host (or --host NAME)\n"
		"        over its libvirt connection, as volume mglrulab-KIND-<sha256>; a host\n"
		"        that has the complete volume skips the upload. The embedded host keeps\n"
		"        local files (its driver has no storage). Prints, per host, the volume,\n"
		"        its path on the host, whether it was sent, and the time taken.\n",
	.options = host_options,
};

static json_t *overlay_step(struct lab_host *h, const struct host_volume *base,
			    const struct host_opts *o, struct strbuf *err)
{
	struct host_volume ov;
	json_t *j;

	if (host_overlay_create(h, base, o->overlay, &ov, err)) {
		host_volume_release(&ov);
		return NULL;
	}
	j = xjson_pack("{s:s, s:o, s:o, s:b}", "name", ov.name, "path", json_string_lossy(ov.path),
		      "backing", json_string_lossy(base->path), "deleted", !o->keep_overlay);
	if (!o->keep_overlay && host_volume_delete(h, ov.name, err)) {
		json_decref(j);
		j = NULL;
	}
	host_volume_release(&ov);
	return j;
}

static int upload_one(struct lab_host *h, const char *file, const struct host_opts *o,
		      json_t *out)
{
	struct strbuf err = STRBUF_INIT;
	struct host_volume v;
	json_t *ov = NULL;
	int r = host_volume_ensure(h, file, o->kind, &v, &err);

	if (!r && o->overlay && !(ov = overlay_step(h, &v, o, &err)))
		r = -1;
	if (r) {
		lab_error("%s", sb_str(&err));
	} else if (o->json) {
		json_array_append_new(out, xjson_pack("{s:s, s:o, s:o, s:o, s:s, s:s, s:I, s:b, s:f, s:o}",
			"host", h->cfg->name, "uri", json_string_lossy(h->cfg->uri),
			"volume", v.name ? json_string(v.name) : json_null(),
			"path", json_string_lossy(v.path), "format", v.format, "sha256", v.sha256,
			"bytes", (json_int_t)v.bytes, "uploaded", v.uploaded, "seconds", v.seconds,
			"overlay", ov ? ov : json_null()));
	} else {
		term_printf(stdout, "%s: %s %s (%llu bytes, %.2f s)\n  %s\n", h->cfg->name,
			    v.name ? v.name : "local file", h->embedded ? "used as is" :
			    v.uploaded ? "uploaded" : "already there", (unsigned long long)v.bytes,
			    v.seconds, v.path);
		if (ov)
			term_printf(stdout, "  overlay %s %s\n", o->overlay,
				    o->keep_overlay ? "created" : "created and deleted");
		json_decref(ov);
	}
	host_volume_release(&v);
	sb_release(&err);
	return r ? LAB_ELAB : LAB_OK;
}

static int host_upload(const struct lab_config *cfg, const char *file, const struct host_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	const char *state = o->state ? o->state : cfg->state_dir;
	json_t *out = json_array();
	int r = LAB_OK;

	if (o->host && !config_host(cfg, o->host)) {
		json_decref(out);
		return user_error("host upload: no [host %s] in %s", o->host, cfg->path);
	}
	for (size_t i = 0; i < cfg->nr_hosts && r == LAB_OK; i++) {
		const struct host_cfg *hc = &cfg->hosts[i];
		struct lab_host h;
		int in_run = 0;

		for (size_t j = 0; j < cfg->run.hosts.n; j++)
			in_run |= !strcmp(cfg->run.hosts.v[j], hc->name);
		if (o->host ? strcmp(o->host, hc->name) != 0 : !in_run)
			continue;
		if (host_open(&h, hc, state, &err)) {
			r = lab_error("%s", sb_str(&err));
			break;
		}
		r = upload_one(&h, file, o, out);
		host_close(&h);
	}
	if (o->json && r == LAB_OK) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(out);
	sb_release(&err);
	return r;
}

int cmd_host(int argc, char **argv)
{
	struct host_opts o = { .kind = HOST_VOL_KERNEL };
	struct lab_config cfg;
	const char *sub = argc > 1 ? argv[1] : NULL;
	int nargs, r;

	static const char *const subs[] = { "upload", NULL };

	if (cmd_select(subs, sub) < 0) {
		r = lab_options_parse(&host_usage, "host", argc, argv, &o, &nargs);
		if (r)
			return cmd_status(r);
		if (!sub) {
			lab_usage_print(&host_usage);
			return LAB_EUSER;
		}
		return cmd_select_error("host", subs, sub);
	}
	argc--, argv++;
	r = lab_options_parse(&host_usage, "host upload", argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	if (nargs != 1)
		return user_error("host upload: expected one FILE, got %d arguments", nargs);
	if (o.keep_overlay && !o.overlay)
		return user_error("host upload: --keep-overlay needs --overlay NAME");
	if (o.overlay && o.kind != HOST_VOL_IMAGE)
		return user_error("host upload: --overlay needs --kind image");
	r = config_load_or_report(cmd_config_path(o.config), &cfg);
	if (!r)
		r = host_upload(&cfg, argv[0], &o);
	config_release(&cfg);
	return r;
}
