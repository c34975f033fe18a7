import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.mirror.*;
import java.util.*;
// Prints what Kafka's own classes answer for the cases of naming.txt and murmur2.txt, to hold
// the fixtures to the real thing (checked against 3.9.0: every value equal). Run with
//   mvn dependency:get -Dartifact=org.apache.kafka:connect-mirror-client:3.9.0 (and kafka-clients,
//   org.slf4j:slf4j-api:1.7.36), then java -cp <the three jars> KafkaCheck.java
public class KafkaCheck {
  static String s(Object o){ return o==null?"null":"'"+o+"'"; }
  public static void main(String[] a) throws Exception {
    String[] keys = {"21","foobar","a-little-bit-long-string","a-little-bit-longer-string","lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8","abc"};
    for (String k: keys) System.out.println("murmur2 "+k+" "+Utils.murmur2(k.getBytes()));
    byte[][] hx = {{}, {(byte)0xff}, {(byte)0xff,(byte)0x80}, {(byte)0xff,(byte)0x80,(byte)0x7f}};
    for (byte[] b: hx) System.out.println("murmur2hex "+b.length+" "+Utils.murmur2(b));
    String[][] cases = {
      {"default",".","true","","us-west","orders"},{"default",".","true","","A","x.orders"},
      {"default",".","true","","us.west","orders"},{"default","_","true","","us.west","orders"},
      {"default","__","true","","x_","t"},{"default","_","false","","A","orders"},
      {"default",".","true","","A","."},{"default",".","true","","A",".x"},{"default",".","true","","A","B.heartbeats"},
      {"identity",".","true","A","A","orders"},{"identity",".","true","","A","orders"},
      {"identity",".","true","A","A","heartbeats"},{"identity",".","true","A","A","myheartbeats"}};
    for (String[] c: cases) {
      DefaultReplicationPolicy p = c[0].equals("identity") ? new IdentityReplicationPolicy() : new DefaultReplicationPolicy();
      Map<String,Object> props = new HashMap<>();
      props.put("replication.policy.separator", c[1]);
      props.put("replication.policy.internal.topic.separator.enabled", c[2]);
      if (!c[3].isEmpty()) props.put("source.cluster.alias", c[3]);
      p.configure(props);
      String r = p.formatRemoteTopic(c[4], c[5]);
      System.out.println("names "+c[0]+" sep="+c[1]+" alias="+c[4]+" topic="+c[5]);
      System.out.println("format_remote_topic: "+s(r));
      System.out.println("topic_source: "+s(p.topicSource(r)));
      System.out.println("upstream_topic: "+s(p.upstreamTopic(r)));
      System.out.println("original_topic: "+s(p.originalTopic(r)));
      System.out.println("is_internal_topic: "+(p.isInternalTopic(r)?"True":"False"));
      System.out.println("is_heartbeats_topic: "+(p.isHeartbeatsTopic(r)?"True":"False"));
      System.out.println("checkpoints_topic: "+s(p.checkpointsTopic(c[4])));
      System.out.println("offset_syncs_topic: "+s(p.offsetSyncsTopic(c[4])));
    }
  }
}
