// tasks-only is a scriptTask service: clean with --kind-map 'tasks/**=scriptTask'.
api.rest.v1.put("tasks-only", {}, {}, { done: true });
return 1;
