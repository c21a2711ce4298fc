// scheduleGraph( in a comment is fine
void f() { scheduleGraph(g); }
