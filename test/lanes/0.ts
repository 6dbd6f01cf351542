/** Lane 0 of `npm test` (lanes.ts). */
import { runLane } from './lanes.ts';

runLane(0);
