// Excluded by restls.yaml's check.exclude: its unknown serviceId is
// reported only when --exclude replaces the file's list.
return api.rest.v1.get("no-such-service", {}, {});
