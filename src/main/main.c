/* crawlsim command (being written). */
int main(void);
int main(void) { return 0; }
