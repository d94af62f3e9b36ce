// A task handler: archives a finished case.
var c = context.input;
api.rest.v1.put("archive-cases", { pathParams: [c.caseId] }, {}, { status: "closed", closedBy: c.user });
return "archived " + c.caseId;
