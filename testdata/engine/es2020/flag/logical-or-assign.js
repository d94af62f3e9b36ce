// want: logical assignment (&&=, ||=, ??=)
let name = "";
name ||= "anonymous";
return name;
