api.rest.v1.get("excluded-by-flag", {}, {});
