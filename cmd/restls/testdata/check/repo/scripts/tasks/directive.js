// restls-kind: scriptTask
api.rest.v1.put("tasks-only", {}, {}, { done: true });
