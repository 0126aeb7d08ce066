/* main: placeholder until the print mode lands. */
#include <stdio.h>

int
main(void)
{
	puts("hearth " HEARTH_VERSION);
	return 0;
}
