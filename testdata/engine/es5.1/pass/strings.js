var s = "a\u0041\x41" + 'b' + /x(?:y)[(?<]\(?<a/gi.source;
return s.length + 0x1F + 010;
