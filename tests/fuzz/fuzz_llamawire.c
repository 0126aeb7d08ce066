/*
 * fuzz_llamawire: libFuzzer harness for what hearth reads from
 * llama-server besides the stream (llama/wire.c, slotfile.c, disco.c,
 * template.c): the /props, /v1/models and /slots answers, the slot
 * choice made from a parsed /slots, the slot save/restore answers, and
 * the chat-template probe's prefix finder (the input split in two at its
 * first NUL or in the middle).  Checks: a parse that fails says why; a
 * parsed /slots array is as long as it says; the chosen slot is -1 or one
 * listed; a slot action's message is NUL-terminated; a template prefix
 * is the tail of the first prompt.  The same input as every answer
 * `hearth doctor` reads (llama/doctor.c: /props, /slots, /v1/models,
 * /metrics, the slot-save and render probes) and as /v1/models searched
 * for a model id: the report is NUL-terminated text that ends in a
 * newline, its problem count is not negative.
 *
 * dict: "\"default_generation_settings\":{\"n_ctx\":"
 * dict: "\"total_slots\":"
 * dict: "\"build_info\":"
 * dict: "{\"data\":[{\"id\":"
 * dict: "\"meta\":{\"n_ctx_train\":"
 * dict: "[{\"id\":0,\"n_ctx\":4096,\"is_processing\":false,\"id_task\":"
 * dict: "\"next_token\":[{\"n_decoded\":"
 * dict: "\"n_prompt_tokens_cache\":"
 * dict: "\"n_saved\":"
 * dict: "\"n_restored\":"
 * dict: "\"timings\":{\"save_ms\":"
 * dict: "<|im_start|>assistant\x0a"
 * dict: "hearth-probe-u1"
 * dict: "hearth-probe-a1"
 * dict: "\"chat_template_caps\":{\"supports_tool_calls\":false}"
 * dict: "\"max_model_len\":"
 * dict: "\"prompt\":\"<think>\x0a\""
 * dict: "\"cache_type_k\":\"q4_0\""
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llama/disco.h"
#include "llama/doctor.h"
#include "llama/slotfile.h"
#include "llama/template.h"
#include "llama/wire.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct llama_info info;
	struct llama_slot *slots = NULL;
	struct llama_slotfile_result res;
	struct err e = ERR_INIT;
	size_t n = 0, i;
	char *p1, *p2, *cand;
	const char *nul;
	int k;

	memset(&info, 0, sizeof info);
	if (llama_wire_props(s, size, &info, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	err_clear(&e);
	if (llama_wire_models(s, size, &info, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	err_clear(&e);
	if (llama_wire_models_for(s, size, "local-tiny", &info, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	err_clear(&e);
	FUZZ_CHECK(info.ctx_meta >= 0);
	llama_wire_info_release(&info);
	{ /* /metrics as a server's load: counts, never negative or NaN */
		struct llama_load load;
		int lr = llama_wire_load(s, size, &load);

		FUZZ_CHECK((lr == 0) == (load.known != 0));
		FUZZ_CHECK(load.running >= 0 && load.waiting >= 0 && load.running == load.running);
	}
	{
		struct llama_doctor_in din;
		struct llama_doctor_ans a = { 200, s, size };
		struct buf rep = BUF_INIT;

		memset(&din, 0, sizeof din);
		din.url = "http://127.0.0.1:8080/v1";
		din.props = din.slots = din.models = din.metrics = din.render = a;
		din.save.status = 501;
		FUZZ_CHECK(llama_doctor_check(&din, &rep) >= 0);
		FUZZ_CHECK(rep.len && rep.data[rep.len - 1] == '\n' && strlen(rep.data) == rep.len);
		buf_release(&rep);
	}

	if (llama_wire_slots(s, size, &slots, &n, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
	} else {
		for (i = 0; i < n; i++) /* every entry readable */
			FUZZ_CHECK(slots[i].n_ctx == slots[i].n_ctx);
		for (k = -1; k < 3; k++) {
			int c = llama_disco_choose_slot(k, slots, n);

			if (k >= 0) {
				FUZZ_CHECK(c == k);
				continue;
			}
			if (c >= 0) {
				for (i = 0; i < n && slots[i].id != c; i++)
					;
				FUZZ_CHECK(i < n);
			}
		}
	}
	free(slots);

	for (k = 0; k < 2; k++) {
		memset(&res, 'x', sizeof res);
		llama_slotfile_parse(k, size ? 200 + (data[0] & 1) * 300 : 200, s, size, &res);
		FUZZ_CHECK(memchr(res.msg, 0, sizeof res.msg) != NULL);
	}

	nul = memchr(s, 0, size);
	i = nul ? (size_t)(nul - s) : size / 2;
	p1 = strndup(s, i);
	p2 = strndup(s + i + (nul != NULL), size - i - (nul != NULL));
	if (!p1 || !p2)
		abort();
	cand = llama_template_candidate(p1, p2);
	if (cand) {
		size_t cn = strlen(cand), pn = strlen(p1);

		FUZZ_CHECK(cn <= pn && !strcmp(p1 + pn - cn, cand));
		(void)llama_template_confirm(p1, p2);
	}
	(void)llama_template_confirm(p2, p1);
	free(cand);
	free(p1);
	free(p2);
	return 0;
}
